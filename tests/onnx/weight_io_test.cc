// Weights are read without copying and written without a second copy (host/onnx/weight_split.h, WriteModel):
// raw tensors of a page or more become windows onto the mapped file (aligned by a copy only when read typed), the
// others are copied and the pages no window covers leave the resident set, every value survives a
// write and a read bit for bit, subgraph and typed tensors are untouched, and a damaged file still gets
// protobuf's clear error rather than a partial model.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <sstream>
#include <thread>
#include <vector>

#include "ir/buffer.h"
#include "ir/model.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "onnx/proto_wire.h"
#include "onnx/weight_split.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/page_advice.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

// A path in the temporary directory, canonical: /proc/self/smaps names a mapping by its file's canonical path.
fs::path Temp(const std::string& name) {
  return fs::canonical(fs::temp_directory_path()) / ("kiln_weight_io_" + std::to_string(::getpid()) + "_" + name);
}

// An empty model (IR 8, opset 17) for a test to fill.
onnx::ModelProto NewModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  return m;
}

void AddRaw(onnx::GraphProto* g, const std::string& name, int n, float first) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(n);
  std::vector<float> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), first);
  t->set_raw_data(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

// `info` (a graph's input, output or value_info entry) as a float tensor named `name`.
onnx::ValueInfoProto* SetFloat(onnx::ValueInfoProto* info, const std::string& name) {
  info->set_name(name);
  info->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return info;
}

// A node op(inputs) -> outputs added to `owner`, a graph or a function.
template <class Owner>
onnx::NodeProto* AddNode(Owner* owner, const std::string& op, const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs) {
  onnx::NodeProto* n = owner->add_node();
  n->set_op_type(op);
  for (const std::string& in : inputs) n->add_input(in);
  for (const std::string& out : outputs) n->add_output(out);
  return n;
}

// `iff`'s branch attribute `branch` (then_branch or else_branch): an empty graph of that name.
onnx::GraphProto* AddBranch(onnx::NodeProto* iff, const std::string& branch) {
  onnx::AttributeProto* a = iff->add_attribute();
  a->set_name(branch);
  a->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto* b = a->mutable_g();
  b->set_name(branch);
  return b;
}

// A constant-true If in `g` whose branches each return a raw weight of their own (65 floats) through an Identity;
// its output y is a graph output.
void AddIfWithRawBranchWeights(onnx::GraphProto* g, const std::string& out = "y") {
  auto* cond = g->add_initializer();
  cond->set_name("cond");
  cond->set_data_type(onnx::TensorProto::BOOL);
  cond->set_raw_data(std::string(1, '\1'));
  auto* iff = AddNode(g, "If", {"cond"}, {out});
  for (const std::string branch : {"then_branch", "else_branch"}) {
    auto* b = AddBranch(iff, branch);
    AddRaw(b, branch + "_w", 65, 1.0f);
    AddNode(b, "Identity", {branch + "_w"}, {branch + "_y"});
    SetFloat(b->add_output(), branch + "_y");
  }
  SetFloat(g->add_output(), out);
}

constexpr int kRawWeights = 12;

// Weight i's element count: every third is under a page (copied when loaded), the others over (borrowed from the
// mapping when aligned).
int64_t Elements(int i) { return i % 3 == 0 ? 64 + i : 1024 + i; }

// A Sum over several float weights whose raw bytes land at different offsets in the file (names of different
// lengths shift them), one typed (float_data) weight, and an If whose branch holds its own raw initializer.
onnx::ModelProto WeightsModel() {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  g->set_name("weights");
  auto* sum = g->add_node();
  sum->set_op_type("Sum");
  for (int i = 0; i < kRawWeights; ++i) {
    std::string name = "w" + std::string(static_cast<size_t>(i), 'x');
    AddRaw(g, name, Elements(i), static_cast<float>(i * 100));
    sum->add_input(name);
  }
  auto* typed = g->add_initializer();
  typed->set_name("typed");
  typed->set_data_type(onnx::TensorProto::FLOAT);
  typed->add_dims(64);
  for (int i = 0; i < 64; ++i) typed->add_float_data(static_cast<float>(-i));
  sum->add_input("typed");
  sum->add_output("s");
  SetFloat(g->add_output(), "s");
  return m;
}

void Write(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// Writes `m` to a file, loads it (weights split from the mapping) and writes it back with WriteModel; returns
// what was written, parsed by protobuf (an empty model when it does not parse).
onnx::ModelProto RoundTrip(const onnx::ModelProto& m, const std::string& tag) {
  fs::path in = Temp(tag + "_in.onnx"), out = Temp(tag + "_out.onnx");
  Write(in, m.SerializeAsString());
  WriteModel(*LoadModel(in.string()), out.string());
  onnx::ModelProto back;
  std::ifstream f(out, std::ios::binary);
  if (!back.ParseFromIstream(&f)) back.Clear();
  fs::remove(in);
  fs::remove(out);
  return back;
}

TEST(WeightSplit, InitializersComeApartWithoutTheirRawDataAndNodesStayInTheFile) {
  onnx::ModelProto m = WeightsModel();
  fs::path p = Temp("split.onnx");
  Write(p, m.SerializeAsString());
  auto split = SplitWeights(Buffer::MapFile(p.string()));
  ASSERT_TRUE(split.has_value());
  ASSERT_EQ(split->raw.size(), kRawWeights + 1u);
  for (size_t i = 0; i < kRawWeights; ++i) {
    ASSERT_TRUE(split->raw[i]) << i;
    EXPECT_EQ(split->raw[i]->size(), static_cast<size_t>(Elements(static_cast<int>(i))) * sizeof(float));
    EXPECT_EQ(std::memcmp(split->raw[i]->data(), m.graph().initializer(static_cast<int>(i)).raw_data().data(),
                          split->raw[i]->size()), 0);
  }
  EXPECT_FALSE(split->raw[kRawWeights]) << "the typed tensor has no raw_data";
  // The main graph's initializers come apart from the skeleton, each as it was but for raw_data, for the importer
  // to parse one at a time.
  onnx::ModelProto skeleton;
  ASSERT_TRUE(skeleton.ParseFromString(split->skeleton));
  EXPECT_EQ(skeleton.graph().initializer_size(), 0);
  ASSERT_EQ(split->initializer_ends.size(), kRawWeights + 1u);
  for (int i = 0; i <= kRawWeights; ++i) {
    onnx::TensorProto t, want = m.graph().initializer(i);
    const std::string_view bytes = split->Initializer(static_cast<size_t>(i));
    ASSERT_TRUE(t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) << i;
    EXPECT_FALSE(t.has_raw_data()) << i;
    want.clear_raw_data();
    EXPECT_EQ(t.SerializeAsString(), want.SerializeAsString()) << i;
  }
  EXPECT_EQ(skeleton.graph().input_size(), m.graph().input_size());
  // The main graph's nodes are left where they lie in the file, for the importer to parse one at a time.
  EXPECT_EQ(skeleton.graph().node_size(), 0);
  ASSERT_EQ(split->nodes.size(), 1u);
  onnx::NodeProto node;
  ASSERT_TRUE(node.ParseFromArray(reinterpret_cast<const char*>(split->file->data()) + split->nodes[0].first,
                                  static_cast<int>(split->nodes[0].second)));
  EXPECT_EQ(node.SerializeAsString(), m.graph().node(0).SerializeAsString());
  fs::remove(p);
}

TEST(WeightSplit, LargeWeightsAreBorrowedAndAlignedWhenReadSmallOnesCopied) {
  fs::path p = Temp("borrow.onnx");
  Write(p, WeightsModel().SerializeAsString());
  std::shared_ptr<const Buffer> file = Buffer::MapFile(p.string());
  auto split = SplitWeights(file);
  ASSERT_TRUE(split.has_value());
  auto in_file = [&](const std::byte* at) { return at >= file->data() && at < file->data() + file->size(); };
  auto address = [](const std::byte* at) { return reinterpret_cast<uintptr_t>(at); };
  int aligned = 0, misaligned = 0;
  for (size_t i = 0; i < kRawWeights; ++i) {
    const auto& b = split->raw[i];
    std::span<const std::byte> raw = b->raw_bytes();
    EXPECT_EQ(split->packed[i], Elements(static_cast<int>(i)) * 4 < 4096) << i;
    if (Elements(static_cast<int>(i)) * 4 < 4096) {
      EXPECT_FALSE(b->is_mapped()) << "weight " << i << " is under a page: a window would hold its page resident";
      EXPECT_FALSE(in_file(raw.data())) << i;
      EXPECT_EQ(address(b->data()) % alignof(float), 0u) << i;
      continue;
    }
    // A window onto the file, written out from there; read typed, it is aligned: the window itself where the
    // file has it aligned, else a copy made once.
    EXPECT_TRUE(b->is_mapped()) << i;
    ASSERT_TRUE(in_file(raw.data())) << "weight " << i << " of a page or more is not a window onto the file";
    const bool at_aligned = address(raw.data()) % alignof(float) == 0;
    (at_aligned ? aligned : misaligned)++;
    const std::byte* typed = b->data();
    EXPECT_EQ(address(typed) % alignof(float), 0u) << "weight " << i << " is misaligned";
    EXPECT_EQ(typed == raw.data(), at_aligned) << i;
    EXPECT_EQ(std::memcmp(typed, raw.data(), raw.size()), 0) << i;
    EXPECT_EQ(b->data(), typed) << "weight " << i << " was copied twice";
    EXPECT_EQ(b->raw_bytes().data(), typed) << "weight " << i << ": once copied, the copy is written out too";
  }
  // Names of lengths 1..12 put the raw bytes at every offset mod 4: some large ones are aligned, some are not.
  EXPECT_GT(aligned, 0);
  EXPECT_GT(misaligned, 0);
  fs::remove(p);
}

// The small weights' tensors share one block, as their bytes do (the import's TensorBlock); a large weight's tensor
// and one without raw bytes are their own, so that a pass replacing one frees it. Each reads back its own values.
TEST(WeightSplit, SmallWeightsShareOneBlockOfTensorsAndLargeOnesDoNot) {
  const onnx::ModelProto m = WeightsModel();
  fs::path p = Temp("tensor_block.onnx");
  Write(p, m.SerializeAsString());
  std::unique_ptr<Model> model = LoadModel(p.string());
  auto same_owner = [](const std::shared_ptr<const Tensor>& a, const std::shared_ptr<const Tensor>& b) {
    return !a.owner_before(b) && !b.owner_before(a);
  };
  std::shared_ptr<const Tensor> first_small;
  std::vector<std::shared_ptr<const Tensor>> own;
  int small = 0;
  for (int i = 0; i <= kRawWeights; ++i) {
    const Value* v = model->graph().FindValue(m.graph().initializer(i).name());
    ASSERT_NE(v, nullptr) << i;
    const std::shared_ptr<const Tensor>& t = v->initializer();
    ASSERT_TRUE(t) << i;
    EXPECT_EQ(t->name(), "") << "the value holds the name";
    const auto& proto = m.graph().initializer(i);
    if (i < kRawWeights) {
      ASSERT_EQ(t->raw_bytes().size(), proto.raw_data().size()) << i;
      EXPECT_EQ(std::memcmp(t->raw_bytes().data(), proto.raw_data().data(), proto.raw_data().size()), 0) << i;
    } else {
      EXPECT_EQ(t->values<float>()[63], -63.0f);
    }
    if (i < kRawWeights && Elements(i) * 4 < 4096) {
      ++small;
      if (!first_small) first_small = t;
      EXPECT_TRUE(same_owner(t, first_small)) << "small weight " << i << " has a block of its own";
    } else {
      for (const auto& o : own) EXPECT_FALSE(same_owner(t, o)) << i;
      if (first_small) {
        EXPECT_FALSE(same_owner(t, first_small)) << "weight " << i << " is in the small ones' block";
      }
      own.push_back(t);
    }
  }
  EXPECT_GT(small, 1);
  EXPECT_GT(own.size(), 1u);
  model.reset();
  EXPECT_EQ(first_small.use_count(), 1) << "the block outlives its model only through what else holds it";
  fs::remove(p);
}

// Threads reading a misaligned window typed at once all get the one copy.
TEST(Buffer, AMappedFileAndItsWindowsSayWhereTheirBytesLieInTheFile) {
  fs::path p = Temp("file_span.bin");
  std::string bytes(3 * Buffer::PageSize(), '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 13 % 251);
  Write(p, bytes);
  std::shared_ptr<const Buffer> file = Buffer::MapFile(p.string());
  auto read_at = [&](const Buffer& b) {  // the file's bytes where b says its own lie
    std::optional<Buffer::FileSpan> span = b.file_span();
    std::string out(b.size(), '\0');
    if (!span || ::pread(span->fd, out.data(), out.size(), static_cast<off_t>(span->offset)) != static_cast<ssize_t>(out.size()))
      return std::string("?");
    return out;
  };
  auto raw = [](const Buffer& b) { return std::string(reinterpret_cast<const char*>(b.raw_bytes().data()), b.size()); };
  EXPECT_EQ(read_at(*file), bytes);
  auto window = Buffer::Slice(file, 100, 5000);
  EXPECT_EQ(window->file_span()->offset, 100u);
  EXPECT_EQ(read_at(*window), raw(*window));
  auto misaligned = Buffer::AlignedSlice(file, 4097, 4000, 8);  // copies itself when read typed: same bytes
  (void)misaligned->data();
  EXPECT_EQ(misaligned->file_span()->offset, 4097u);
  EXPECT_EQ(read_at(*misaligned), raw(*misaligned));
  EXPECT_EQ(read_at(*Buffer::Slice(window, 10, 20)), bytes.substr(110, 20));
  EXPECT_FALSE(Buffer::Copy(window->raw_bytes())->file_span());  // bytes on the heap lie in no file
  fs::remove(p);
}

TEST(Buffer, MappingsPastTheFirst256KeepNoDescriptor) {
  // A model may be split over thousands of external-data files: each stays mapped, but only so many descriptors.
  fs::path dir = Temp("many_files");
  fs::create_directories(dir);
  std::vector<std::shared_ptr<const Buffer>> maps;
  for (int i = 0; i < 300; ++i) {
    fs::path p = dir / ("w" + std::to_string(i));
    Write(p, std::string(100, static_cast<char>(i)));
    maps.push_back(Buffer::MapFile(p.string()));
  }
  size_t with_span = 0;
  for (const auto& m : maps) with_span += m->file_span() ? 1 : 0;
  EXPECT_EQ(with_span, 256u);
  EXPECT_EQ(maps[299]->raw_bytes()[0], std::byte{43});  // 299 % 256: mapped all the same
  maps.erase(maps.begin(), maps.begin() + 100);  // their descriptors close with them
  EXPECT_TRUE(Buffer::MapFile((dir / "w0").string())->file_span());
  maps.clear();
  fs::remove_all(dir);
}

TEST(AlignedSlice, ConcurrentFirstReadsShareOneCopy) {
  std::string bytes(1 << 16, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  std::shared_ptr<const Buffer> whole = Buffer::FromString(std::string(bytes));
  std::shared_ptr<const Buffer> window = Buffer::AlignedSlice(whole, 3, 40000, 8);
  EXPECT_EQ(window->raw_bytes().data(), whole->data() + 3);  // not copied for byte-wise reads
  std::vector<const std::byte*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t) threads.emplace_back([&, t] { seen[t] = window->data(); });
  for (auto& t : threads) t.join();
  for (const std::byte* at : seen) EXPECT_EQ(at, seen[0]);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(seen[0]) % 8, 0u);
  EXPECT_EQ(std::memcmp(seen[0], bytes.data() + 3, 40000), 0);
  EXPECT_EQ(window->raw_bytes().data(), seen[0]);
  // An aligned window is the window itself.
  EXPECT_EQ(Buffer::AlignedSlice(whole, 16, 100, 8)->data(), whole->data() + 16);
}

// The resident kilobytes of the mapping of `path` in this process (/proc/self/smaps), or -1 when none is found.
long ResidentKb(const fs::path& path) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in_file = false;
  while (std::getline(smaps, line)) {
    if (line.find('-') != std::string::npos && line.find(':') != std::string::npos && !line.empty() &&
        std::isxdigit(static_cast<unsigned char>(line[0])) && line.find(" kB") == std::string::npos) {
      in_file = line.size() >= path.string().size() &&
                line.compare(line.size() - path.string().size(), std::string::npos, path.string()) == 0;
    } else if (in_file && line.rfind("Rss:", 0) == 0) {
      std::istringstream in(line.substr(4));
      long kb = -1;
      in >> kb;
      return kb;
    }
  }
  return -1;
}

TEST(WeightSplit, PagesNoWindowCoversLeaveTheResidentSet) {
  // 4000 weights of 64 bytes each: a 400 kB file whose every page holds some, none worth a window.
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  auto* sum = g->add_node();
  sum->set_op_type("Sum");
  for (int i = 0; i < 4000; ++i) {
    AddRaw(g, "w" + std::to_string(i), 16, static_cast<float>(i));
    sum->add_input("w" + std::to_string(i));
  }
  sum->add_output("s");
  fs::path p = Temp("rss.onnx");
  Write(p, m.SerializeAsString());
  std::shared_ptr<const Buffer> file = Buffer::MapFile(p.string());
  auto split = SplitWeights(file);  // the walk reads every page of the file
  ASSERT_TRUE(split.has_value());
  for (int i = 0; i < 4000; ++i) {
    ASSERT_FALSE(split->raw[static_cast<size_t>(i)]->is_mapped()) << i;
    EXPECT_EQ(reinterpret_cast<const float*>(split->raw[static_cast<size_t>(i)]->data())[15], static_cast<float>(i + 15));
  }
  // The node's bytes stay mapped for the importer to parse; every other page is given back.
  ASSERT_EQ(split->nodes.size(), 1u);
  const long node_kb = static_cast<long>(split->nodes[0].second / 1024);
  long kb = ResidentKb(p);
  ASSERT_GE(kb, 0) << "no mapping of " << p << " in /proc/self/smaps";
  EXPECT_LE(kb, node_kb + 8) << "of a " << fs::file_size(p) / 1024 << " kB file whose node takes " << node_kb << " kB";
  EXPECT_GE(kb, node_kb - 8) << "the node's bytes were given back before they were parsed";
  split->ReleaseNodeBytesBefore(SIZE_MAX);
  EXPECT_LE(ResidentKb(p), 16) << "beyond the pages at the node's two ends, which hold other bytes too";
  fs::remove(p);
}

// A weight of a page or more is a window onto the mapping that maps none of its pages until something reads them:
// written out unchanged, it is copied file to file (AtomicFile::CopyFrom), so a compile need not hold the model file
// resident. The split mapped every window's pages at once before (MADV_POPULATE_READ), and this test then saw the
// whole 8 MB; a read of four bytes mapped their page before Buffer::Read took small ranges from the file too.
TEST(WeightSplit, ALargeWeightsPagesStayUnmappedUntilItIsRead) {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  AddNode(g, "Add", {"a", "b"}, {"s"});
  AddRaw(g, "a", 1 << 20, 0.0f);  // 4 MB each
  AddRaw(g, "b", 1 << 20, 1.0f);
  fs::path p = Temp("lazy.onnx");
  Write(p, m.SerializeAsString());
  std::shared_ptr<const Buffer> file = Buffer::MapFile(p.string());
  auto split = SplitWeights(file);
  ASSERT_TRUE(split.has_value());
  split->ReleaseNodeBytesBefore(SIZE_MAX);
  ASSERT_TRUE(split->raw[0]->is_mapped());
  const long kb = ResidentKb(p);
  ASSERT_GE(kb, 0) << "no mapping of " << p << " in /proc/self/smaps";
  EXPECT_LE(kb, 32) << "of a " << fs::file_size(p) / 1024 << " kB file whose weights nothing has read";
  // A range read through Buffer::Read (value_constant_read's path) comes from the file: it maps nothing.
  float f = 0;
  split->raw[1]->Read(12345 * sizeof(float), std::as_writable_bytes(std::span<float>(&f, 1)));
  EXPECT_EQ(f, 12346.0f);
  EXPECT_EQ(ResidentKb(p), kb);
  // Read in place, a window gives its bytes (faulting in what is read).
  EXPECT_EQ(reinterpret_cast<const float*>(split->raw[1]->raw_bytes().data())[12345], 12346.0f);
  EXPECT_GT(ResidentKb(p), kb);
  split.reset();
  file.reset();
  fs::remove(p);
}

// The import parses the main graph's nodes where they lie in the mapping and gives their pages back as it passes
// them, a few megabytes at a time, never a page it has yet to read.
TEST(WeightSplit, NodePagesAreGivenBackAsTheImportPassesThem) {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  AddRaw(g, "w", 16, 1.0f);
  const std::string padding(4000, 'd');
  std::string last = "w";
  for (int i = 0; i < 4000; ++i) {  // 16 MB of nodes
    auto* n = AddNode(g, "Neg", {last}, {"v" + std::to_string(i)});
    n->set_doc_string(padding);
    last = "v" + std::to_string(i);
  }
  fs::path p = Temp("nodes.onnx");
  Write(p, m.SerializeAsString());
  auto split = SplitWeights(Buffer::MapFile(p.string()));
  ASSERT_TRUE(split.has_value());
  ASSERT_EQ(split->nodes.size(), 4000u);
  const auto& [first_offset, first_size] = split->nodes.front();
  const auto& [last_offset, last_size] = split->nodes.back();
  const long nodes_kb = static_cast<long>((last_offset + last_size - first_offset) / 1024);
  EXPECT_GE(ResidentKb(p), nodes_kb - 8);
  split->ReleaseNodeBytesBefore(split->nodes[100].first);  // under the step: nothing goes yet
  EXPECT_GE(ResidentKb(p), nodes_kb - 8);
  const size_t half = split->nodes[2000].first;
  split->ReleaseNodeBytesBefore(half);
  const long after_half = ResidentKb(p);
  EXPECT_LE(after_half, nodes_kb / 2 + 16);
  // The kernel may map the page cache's large folios (up to 2 MB) whole; giving back part of one gives back all.
  EXPECT_GE(after_half, nodes_kb / 2 - 2048 - 16) << "pages well past the parsed nodes were given back";
  split->ReleaseNodeBytesBefore(SIZE_MAX);
  EXPECT_LE(ResidentKb(p), 16);
  const char* bytes = reinterpret_cast<const char*>(split->file->data());
  onnx::NodeProto node;  // a page given back reads again from the file
  ASSERT_TRUE(node.ParseFromArray(bytes + split->nodes[10].first, static_cast<int>(split->nodes[10].second)));
  EXPECT_EQ(node.output(0), "v10");
  split.reset();
  std::unique_ptr<Model> model = LoadModel(p.string());
  EXPECT_EQ(model->graph().num_nodes(), 4000u);
  EXPECT_EQ(model->graph().nodes().back()->doc_string(), padding);
  fs::remove(p);
}

// Buffer::CopyStored (and so Buffer::Read, an aligned copy and ABI 1.11's stored_bytes_read) reads a large range of
// a mapped file from the file, touching none of the mapping's pages, and copies anything else as memcpy would.
TEST(Buffer, CopyStoredReadsLargeRangesOfAMappedFileFromTheFile) {
  std::string bytes((1 << 20) + 3, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 13 % 251);
  fs::path p = Temp("copy.bin");
  Write(p, bytes);
  std::shared_ptr<const Buffer> file = Buffer::MapFile(p.string());
  auto as_string = [](std::span<const std::byte> b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); };
  std::vector<std::byte> out(600000);
  Buffer::CopyStored(file->data() + 3, out);
  EXPECT_EQ(as_string(out), bytes.substr(3, out.size()));
  std::shared_ptr<const Buffer> misaligned = Buffer::AlignedSlice(file, 4097, 500000, 8);
  EXPECT_EQ(as_string(misaligned->bytes()), bytes.substr(4097, 500000));
  Buffer::Slice(file, 10, 700000)->Read(5, std::span<std::byte>(out).first(300000));
  EXPECT_EQ(as_string(std::span<std::byte>(out).first(300000)), bytes.substr(15, 300000));
  long kb = ResidentKb(p);
  ASSERT_GE(kb, 0) << "no mapping of " << p << " in /proc/self/smaps";
  EXPECT_LE(kb, 8) << "pages of the mapping were read";
  // A range running past the mapping's end is no file's: copied from where it lies (here the heap).
  std::string heap(100000, 'x');
  std::vector<std::byte> got(heap.size());
  Buffer::CopyStored(heap.data(), got);
  EXPECT_EQ(as_string(got), heap);
  // A small range is copied through the mapping: a system call would cost more.
  std::vector<std::byte> small(100);
  Buffer::CopyStored(file->data() + 50, small);
  EXPECT_EQ(as_string(small), bytes.substr(50, 100));
  EXPECT_GT(ResidentKb(p), kb);
  fs::remove(p);
}

TEST(WeightSplit, LoadedValuesMatchAndSurviveAStreamedWrite) {
  onnx::ModelProto m = WeightsModel();
  onnx::ModelProto back = RoundTrip(m, "values");
  ASSERT_TRUE(back.has_graph());
  ASSERT_EQ(back.graph().initializer_size(), kRawWeights + 1);
  for (int i = 0; i <= kRawWeights; ++i) {
    const auto& a = m.graph().initializer(i);
    const auto* b = &back.graph().initializer(i);
    EXPECT_EQ(a.name(), b->name());
    EXPECT_EQ(a.raw_data(), b->raw_data()) << a.name();
    EXPECT_EQ(a.float_data_size(), b->float_data_size()) << a.name();
  }
  EXPECT_EQ(back.graph().node_size(), 1);
}

// Raw bytes of 64 KiB or more bypass protobuf's buffer on the way to the file: large and small weights
// interleaved (either side of that size) still read back bit for bit, in order, with a valid model around them.
TEST(WeightSplit, LargeAndSmallWeightsInterleavedSurviveAWrite) {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  g->set_name("large_and_small");
  auto* concat = g->add_node();
  concat->set_op_type("Concat");
  auto* axis = concat->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  const int sizes[] = {3, 16384, 16383, 40000, 1, 70000, 5};
  for (int i = 0; i < 7; ++i) {
    std::string name = "p" + std::to_string(i);
    AddRaw(g, name, sizes[i], static_cast<float>(i * 1000) + 0.25f);
    concat->add_input(name);
  }
  concat->add_output("c");
  SetFloat(g->add_output(), "c");
  const uint64_t copied_before = AtomicFile::CopiedBytes();
  onnx::ModelProto back = RoundTrip(m, "large_and_small");
  // Those of 64 KiB or more are windows onto the mapped input: the kernel copied them file to file.
  EXPECT_EQ(AtomicFile::CopiedBytes() - copied_before, (16384u + 40000u + 70000u) * sizeof(float));
  ASSERT_EQ(back.graph().initializer_size(), 7);
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(back.graph().initializer(i).name(), m.graph().initializer(i).name());
    EXPECT_EQ(back.graph().initializer(i).raw_data(), m.graph().initializer(i).raw_data()) << i;
  }
  EXPECT_EQ(back.graph().node_size(), 1);
  EXPECT_EQ(back.graph().output(0).name(), "c");
}

TEST(WeightSplit, RawDataInSubgraphsIsWrittenInline) {
  onnx::ModelProto m = WeightsModel();
  auto* g = m.mutable_graph();
  AddIfWithRawBranchWeights(g);
  onnx::ModelProto back = RoundTrip(m, "subgraphs");
  int branches = 0;
  for (const auto& n : back.graph().node()) {
    if (n.op_type() != "If") continue;
    for (const auto& a : n.attribute()) {
      EXPECT_EQ(a.g().initializer(0).raw_data(), m.graph().node(1).attribute(0).g().initializer(0).raw_data());
      ++branches;
    }
  }
  EXPECT_EQ(branches, 2);
}

// A length-delimited protobuf field, encoded by hand so that a test can put a field in a file twice.
std::string LengthDelimited(uint32_t field, const std::string& body) {
  std::string out;
  AppendLengthDelimited(out, field, body);
  return out;
}

TEST(WeightSplit, TheLastRawDataFieldWinsAsInProtobuf) {
  onnx::ModelProto m = WeightsModel();
  // The first initializer with a second raw_data field (zeros) after the first: protobuf keeps the last one.
  std::string tensor = m.graph().initializer(0).SerializeAsString() +
                       LengthDelimited(9, std::string(m.graph().initializer(0).raw_data().size(), '\0'));
  onnx::ModelProto rest = m;
  rest.mutable_graph()->mutable_initializer()->DeleteSubrange(0, 1);
  onnx::ModelProto shell = m;
  shell.clear_graph();
  std::string file = shell.SerializeAsString() +
                     LengthDelimited(7, LengthDelimited(5, tensor) + rest.graph().SerializeAsString());
  onnx::ModelProto reference;
  ASSERT_TRUE(reference.ParseFromString(file));
  ASSERT_EQ(reference.graph().initializer(0).raw_data(), std::string(reference.graph().initializer(0).raw_data().size(), '\0'));
  fs::path p = Temp("twice.onnx");
  Write(p, file);
  onnx::ModelProto exported = ExportModelProto(*LoadModel(p.string()));
  bool found = false;
  for (const auto& t : exported.graph().initializer())
    if (t.name() == reference.graph().initializer(0).name()) {
      found = true;
      EXPECT_EQ(t.raw_data(), reference.graph().initializer(0).raw_data());
    }
  EXPECT_TRUE(found);
  fs::remove(p);
}

TEST(WeightSplit, DamagedFilesGetProtobufsError) {
  std::string bytes = WeightsModel().SerializeAsString();
  for (size_t cut : {bytes.size() / 3, bytes.size() / 2, bytes.size() - 5}) {
    fs::path p = Temp("cut.onnx");
    Write(p, bytes.substr(0, cut));
    EXPECT_FALSE(SplitWeights(Buffer::MapFile(p.string())).has_value()) << cut;
    try {
      LoadModel(p.string());
      ADD_FAILURE() << "a file cut at " << cut << " of " << bytes.size() << " bytes loaded";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kInvalidModel);
      EXPECT_NE(std::string(e.what()).find("not a valid ONNX protobuf"), std::string::npos) << e.what();
    }
    fs::remove(p);
  }
}

// The main graph's nodes, parsed one at a time from the split (weight_split.h), import as the whole parse does:
// a node reading a later node's output (bound when every node is declared), an If whose branches read an outer
// value, and the Sum over the weights, in file order.
TEST(WeightSplit, NodesParsedOneAtATimeImportAsTheWholeParse) {
  onnx::ModelProto m = WeightsModel();
  auto* g = m.mutable_graph();
  AddNode(g, "Neg", {"later"}, {"early"});  // reads what the next node writes
  AddNode(g, "Abs", {"s"}, {"later"});
  SetFloat(g->add_output(), "early");
  AddIfWithRawBranchWeights(g);
  g->mutable_node(3)->mutable_attribute(0)->mutable_g()->mutable_node(0)->set_input(0, "s");  // an outer read
  const std::string bytes = m.SerializeAsString();
  fs::path p = Temp("streamed.onnx");
  Write(p, bytes);
  auto split = SplitWeights(Buffer::MapFile(p.string()));
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->nodes.size(), 4u);
  std::unique_ptr<Model> streamed = LoadModel(p.string());
  std::unique_ptr<Model> whole = LoadModelFromBytes(bytes, p.string(), fs::temp_directory_path().string());
  EXPECT_EQ(ExportModelProto(*streamed).SerializeAsString(), ExportModelProto(*whole).SerializeAsString());
  ASSERT_EQ(streamed->graph().num_nodes(), 4u);
  EXPECT_EQ(streamed->graph().nodes().front()->op_type(), "Sum");
  fs::remove(p);
}

// A node whose bytes are well framed but not a NodeProto is the model's error, naming the node.
TEST(WeightSplit, ACorruptStreamedNodeIsTheModelsError) {
  onnx::ModelProto m = WeightsModel();
  onnx::ModelProto shell = m;
  shell.clear_graph();
  const std::string file = shell.SerializeAsString() +
                           LengthDelimited(7, m.graph().SerializeAsString() + LengthDelimited(1, "\xff\xff\xff"));
  fs::path p = Temp("bad_node.onnx");
  Write(p, file);
  try {
    LoadModel(p.string());
    ADD_FAILURE() << "a model with a corrupt node loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInvalidModel);
    EXPECT_NE(std::string(e.what()).find("not a valid ONNX protobuf"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("node 1"), std::string::npos) << e.what();
  }
  fs::remove(p);
}

// Buffer::Zeros maps blocks of 2 MB or more itself (2 MB-aligned, prefaulted): every size reads as zeros, and
// a block that a pass writes through its tensor keeps what was written.
TEST(ZeroedBuffer, EverySizeIsZeroAndLargeBlocksAreAligned) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{4096}, size_t{256} << 10, (size_t{2} << 20) + 3, size_t{9} << 20}) {
    auto b = Buffer::Zeros(n);
    ASSERT_EQ(b->size(), n);
    ASSERT_NE(b->data(), nullptr);
    EXPECT_TRUE(std::all_of(b->data(), b->data() + n, [](std::byte x) { return x == std::byte{0}; })) << n;
    if (n >= (size_t{2} << 20)) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % (uintptr_t{2} << 20), 0u) << n;
    }
    if (n > 0) {
      auto* w = const_cast<std::byte*>(b->data());
      w[0] = w[n - 1] = std::byte{7};
      EXPECT_EQ(b->data()[n - 1], std::byte{7});
    }
  }
}

// Blocks under 2 MB come from the heap, which hands back memory it has used: a block made where a written one was
// freed still reads as zeros.
TEST(ZeroedBuffer, HeapBlocksReadAsZeroAfterAWrittenOneIsFreed) {
  for (size_t n : {size_t{4096}, size_t{256} << 10, size_t{1} << 20, (size_t{2} << 20) - 1}) {
    for (int round = 0; round < 3; ++round) {
      auto b = Buffer::Zeros(n);
      ASSERT_TRUE(std::all_of(b->data(), b->data() + n, [](std::byte x) { return x == std::byte{0}; }))
          << n << " round " << round;
      std::memset(const_cast<std::byte*>(b->data()), 0x5a, n);
    }
  }
}

// Buffer::Pack: each piece reads back its own bytes, aligned for any element type, packed one after another in one
// block (16 bytes of header each), and a piece outlives the others and the vector that returned it.
TEST(Buffer, PackedPiecesHoldTheirBytesAndOutliveTheRest) {
  const std::vector<size_t> sizes = {0, 1, 15, 16, 17, 64, 1000, 3};
  std::vector<std::vector<std::byte>> bytes;
  for (size_t i = 0; i < sizes.size(); ++i) {
    bytes.emplace_back(sizes[i]);
    for (size_t k = 0; k < sizes[i]; ++k) bytes.back()[k] = static_cast<std::byte>(31 * i + k);
  }
  std::vector<std::span<const std::byte>> pieces(bytes.begin(), bytes.end());
  std::shared_ptr<const Buffer> last;
  {
    std::vector<std::shared_ptr<const Buffer>> packed = Buffer::Pack(pieces);
    ASSERT_EQ(packed.size(), sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) {
      ASSERT_EQ(packed[i]->size(), sizes[i]) << i;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(packed[i]->data()) % 16, 0u) << i;
      EXPECT_TRUE(std::equal(bytes[i].begin(), bytes[i].end(), packed[i]->data())) << i;
      EXPECT_EQ(packed[i]->raw_bytes().data(), packed[i]->data()) << i;
      if (i > 0) {  // the header, then the previous piece's bytes rounded up to 16
        const size_t stride = 16 + (sizes[i - 1] + 15) / 16 * 16;
        EXPECT_EQ(packed[i]->data() - packed[i - 1]->data(), static_cast<ptrdiff_t>(stride)) << i;
      }
    }
    last = packed.back();
  }
  EXPECT_EQ(last->size(), sizes.back());
  EXPECT_TRUE(std::equal(bytes.back().begin(), bytes.back().end(), last->data()));
  EXPECT_TRUE(Buffer::Pack({}).empty());
}

// WriteModel streams the main graph's nodes, value_info entries and initializers one at a time, sized before they
// are written, and the model's functions serialized as it exports them (a function whose body holds a subgraph with
// its own raw initializer among them), where protobuf would write them: the file parses to the model
// ExportModelProto gives, quantization annotations and sparse initializers (the graph's fields after value_info)
// and a main-graph node holding subgraphs with raw weights included. Written with those branch weights in an
// external-data file, each is written there once (the node holding them is exported once) and reads back the same.
TEST(WriteModel, StreamedEntriesAndFunctionsGiveTheExportedModel) {
  onnx::ModelProto m = NewModel();
  auto* fo = m.add_opset_import();
  fo->set_domain("f");
  fo->set_version(1);
  auto* g = m.mutable_graph();
  g->set_name("parts");
  SetFloat(g->add_input(), "x")->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(65);
  AddNode(g, "Pick", {"x"}, {"a"})->set_domain("f");
  AddNode(g, "Relu", {"a"}, {"y"});
  SetFloat(g->add_value_info(), "a");
  SetFloat(g->add_output(), "y");
  AddRaw(g, "s", 1, 0.5f);
  auto* qa = g->add_quantization_annotation();
  qa->set_tensor_name("a");
  auto* kv = qa->add_quant_parameter_tensor_names();
  kv->set_key("SCALE_TENSOR");
  kv->set_value("s");
  auto* sp = g->add_sparse_initializer();
  sp->add_dims(4);
  auto* values = sp->mutable_values();
  values->set_name("sp");
  values->set_data_type(onnx::TensorProto::FLOAT);
  values->add_dims(1);
  values->add_float_data(2.0f);
  auto* indices = sp->mutable_indices();
  indices->set_name("sp_indices");
  indices->set_data_type(onnx::TensorProto::INT64);
  indices->add_dims(1);
  indices->add_int64_data(3);
  AddIfWithRawBranchWeights(g, "z");
  // f.Pick(v) = If(true) then v + branch weight else v: the then-branch holds a raw initializer of its own.
  auto* f = m.add_functions();
  f->set_name("Pick");
  f->set_domain("f");
  f->add_input("v");
  f->add_output("w");
  f->add_opset_import()->set_version(17);
  auto* ca = AddNode(f, "Constant", {}, {"cond"})->add_attribute();
  ca->set_name("value");
  ca->set_type(onnx::AttributeProto::TENSOR);
  ca->mutable_t()->set_data_type(onnx::TensorProto::BOOL);
  ca->mutable_t()->add_int32_data(1);
  auto* iff = AddNode(f, "If", {"cond"}, {"w"});
  auto* then_branch = AddBranch(iff, "then_branch");
  AddRaw(then_branch, "bw", 65, 1.0f);
  AddNode(then_branch, "Add", {"v", "bw"}, {"then_out"});
  SetFloat(then_branch->add_output(), "then_out");
  auto* else_branch = AddBranch(iff, "else_branch");
  AddNode(else_branch, "Identity", {"v"}, {"else_out"});
  SetFloat(else_branch->add_output(), "else_out");
  fs::path in = Temp("parts_in.onnx"), out = Temp("parts_out.onnx");
  Write(in, m.SerializeAsString());
  auto model = LoadModel(in.string());
  ASSERT_TRUE(model);
  WriteModel(*model, out.string());
  onnx::ModelProto written;
  {
    std::ifstream file(out, std::ios::binary);
    ASSERT_TRUE(written.ParseFromIstream(&file));
  }
  const onnx::ModelProto exported = ExportModelProto(*model);
  EXPECT_EQ(written.graph().node_size(), 3);
  EXPECT_EQ(written.functions_size(), 1);
  EXPECT_EQ(written.graph().quantization_annotation_size(), 1);
  EXPECT_EQ(written.graph().sparse_initializer_size(), 1);
  // "a" once: listed in value_info and typed, it is not written again among the values passes typed.
  ASSERT_EQ(written.graph().value_info_size(), 1);
  EXPECT_EQ(written.graph().value_info(0).name(), "a");
  google::protobuf::util::MessageDifferencer diff;
  std::string report;
  diff.ReportDifferencesToString(&report);
  EXPECT_TRUE(diff.Compare(exported, written)) << report.substr(0, 2000);

  ExportOptions external;
  external.external_data_threshold = 64;  // the three 260-byte branch weights (two here, one in the function)
  WriteModel(*model, out.string(), external);
  EXPECT_EQ(fs::file_size(out.string() + ".data"), 640u + 260u);  // each at a 64-byte boundary
  auto reread = LoadModel(out.string());
  ASSERT_TRUE(reread);
  onnx::ModelProto inlined;
  ASSERT_TRUE(inlined.ParseFromString(SerializeModel(*reread, "parts_external")));
  report.clear();
  EXPECT_TRUE(diff.Compare(exported, inlined)) << report.substr(0, 2000);
  model.reset();
  reread.reset();
  for (const fs::path& p : {in, out, fs::path(out.string() + ".data")}) fs::remove(p);
}

// SerializeModel (the embedding API's bytes) is WriteModel's stream into a string: for a model without external data
// (weights either side of the 64 KiB direct write, a typed one, a subgraph's own raw weight) the same bytes as the
// file, and a model whose weights were external when read gets every one inline.
TEST(SerializeModel, GivesTheBytesWriteModelWritesWithEveryTensorInline) {
  onnx::ModelProto m = WeightsModel();
  auto* g = m.mutable_graph();
  AddRaw(g, "large", 70000, 3.5f);  // 280,000 bytes: written past protobuf's buffer
  g->mutable_node(0)->add_input("large");
  AddIfWithRawBranchWeights(g);
  fs::path in = Temp("serialize_in.onnx"), out = Temp("serialize_out.onnx"), ext = Temp("serialize_ext.onnx");
  Write(in, m.SerializeAsString());
  auto model = LoadModel(in.string());
  ASSERT_TRUE(model);
  WriteModel(*model, out.string());
  std::ifstream file(out, std::ios::binary);
  const std::string written((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::string bytes = SerializeModel(*model, "serialize");
  EXPECT_EQ(bytes.size(), written.size());
  EXPECT_TRUE(bytes == written);

  // Written with external data, read back (its weights now external), serialized: all inline again.
  ExportOptions external;
  external.external_data_threshold = 1024;
  WriteModel(*model, ext.string(), external);
  auto reread = LoadModel(ext.string());
  ASSERT_TRUE(reread);
  onnx::ModelProto inline_model;
  ASSERT_TRUE(inline_model.ParseFromString(SerializeModel(*reread, "serialize_ext")));
  int external_before = 0;
  {
    onnx::ModelProto on_disk;
    std::ifstream f(ext, std::ios::binary);
    ASSERT_TRUE(on_disk.ParseFromIstream(&f));
    for (const auto& t : on_disk.graph().initializer())
      external_before += t.data_location() == onnx::TensorProto::EXTERNAL;
  }
  EXPECT_GE(external_before, 8);  // the weights of a page or more, "large" among them
  ASSERT_EQ(inline_model.graph().initializer_size(), m.graph().initializer_size());
  for (int i = 0; i < m.graph().initializer_size(); ++i) {
    const auto& a = m.graph().initializer(i);
    const auto& b = inline_model.graph().initializer(i);
    EXPECT_EQ(a.name(), b.name());
    EXPECT_NE(b.data_location(), onnx::TensorProto::EXTERNAL) << a.name();
    EXPECT_EQ(b.external_data_size(), 0) << a.name();
    EXPECT_EQ(a.raw_data(), b.raw_data()) << a.name();
    EXPECT_EQ(a.float_data_size(), b.float_data_size()) << a.name();
  }
  model.reset();
  reread.reset();
  for (const fs::path& p : {in, out, ext, fs::path(ext.string() + ".data")}) fs::remove(p);
}

// PrefaultForWrite advises and maps only pages wholly inside the block it is given, and changes no byte: a block
// at an odd offset inside a larger allocation, and its neighbours, read what was written before.
TEST(PrefaultForWrite, ChangesNoByteInsideOrAroundTheBlock) {
  for (size_t n : {size_t{0}, size_t{100}, size_t{5000}, (size_t{2} << 20) + 12345, size_t{7} << 20}) {
    std::vector<unsigned char> whole(n + 10000);
    for (size_t i = 0; i < whole.size(); ++i) whole[i] = static_cast<unsigned char>(i * 131 + 7);
    const std::vector<unsigned char> before = whole;
    PrefaultForWrite(whole.data() + 4321, n);
    EXPECT_TRUE(whole == before) << n;
  }
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

// A computed weight (Buffer::Computed, ABI 1.10's computed constants) is written a piece at a time, inline and to
// an external-data file, and never made whole for it: the written bytes are what it computes, and afterwards it
// still computes ranges on demand.
TEST(ComputedWeights, AreStreamedToTheFileWithoutBeingMadeWhole) {
  onnx::ModelProto m = WeightsModel();
  fs::path in = Temp("computed_in.onnx");
  Write(in, m.SerializeAsString());
  auto model = LoadModel(in.string());
  constexpr size_t kElements = (size_t{3} << 20) / 4 + 5;  // past the writer's pieces, with a remainder
  auto value = [](size_t i) { return static_cast<float>(i % 1000) * 0.5f - 7.0f; };
  auto computed = Buffer::Computed(kElements * 4, 4, [value](size_t offset, std::span<std::byte> out) {
    for (size_t i = 0; i < out.size() / 4; ++i) {
      float v = value(offset / 4 + i);
      std::memcpy(out.data() + i * 4, &v, 4);
    }
  });
  Value* w = model->graph().FindValue(m.graph().initializer(0).name());
  ASSERT_NE(w, nullptr);
  model->graph().SetInitializer(
      w, std::make_shared<const Tensor>(DataType::kFloat, std::vector<int64_t>{static_cast<int64_t>(kElements)},
                                        computed));
  auto expect_bytes = [&](const std::string& bytes) {
    ASSERT_EQ(bytes.size(), kElements * 4);
    for (size_t i = 0; i < kElements; i += 9973) {
      float v;
      std::memcpy(&v, bytes.data() + i * 4, 4);
      ASSERT_EQ(v, value(i)) << i;
    }
    float last;
    std::memcpy(&last, bytes.data() + (kElements - 1) * 4, 4);
    EXPECT_EQ(last, value(kElements - 1));
  };
  std::vector<std::byte> probe(4);

  fs::path out = Temp("computed_out.onnx");
  WriteModel(*model, out.string());
  onnx::ModelProto back;
  {
    std::ifstream f(out, std::ios::binary);
    ASSERT_TRUE(back.ParseFromIstream(&f));
  }
  EXPECT_EQ(back.graph().initializer(0).name(), w->name());
  expect_bytes(back.graph().initializer(0).raw_data());
  EXPECT_TRUE(computed->ComputeInto(0, probe)) << "writing made the weight whole";

  ExportOptions external;
  external.external_data_threshold = 1024;
  WriteModel(*model, out.string(), external);
  EXPECT_TRUE(computed->ComputeInto(0, probe)) << "writing external data made the weight whole";
  auto reread = LoadModel(out.string());
  const Value* again = reread->graph().FindValue(w->name());
  ASSERT_NE(again, nullptr);
  std::span<const std::byte> bytes = again->initializer()->raw_bytes();
  expect_bytes(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  reread.reset();
  fs::remove(in);
  fs::remove(out);
  fs::remove(out.string() + ".data");
}

}  // namespace
}  // namespace kiln
