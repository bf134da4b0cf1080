// TfIdfVectorizer (opset 9): counts the pooled n-grams (min_gram_length..max_gram_length, items up to
// max_skip_count apart) in each row of an int32/int64/string [C] or [B, C] input and writes TF, IDF or TFIDF
// values at ngram_indexes. Unigrams are counted once per position, not once per skip distance (as ONNX Runtime
// does). N-grams never cross rows.
#include <map>
#include <string>
#include <unordered_map>

#include <kiln/kiln_plugin_parts.hpp>
#include "core/tensor_util.h"

namespace {

namespace sdk = kiln::sdk;
using namespace kiln::kernels;
using namespace kiln::kernels::tx;

void TfIdfVectorizerKernel(sdk::KernelContext& ctx) {
  sdk::TensorView x = ctx.RequiredInput(0);
  const std::string mode = ctx.GetString("mode", "TF");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    throw InvalidArg("TfIdfVectorizer: unknown mode '" + mode + "'");
  const int64_t min_n = ctx.GetInt("min_gram_length", 1), max_n = ctx.GetInt("max_gram_length", 1);
  const int64_t max_skip = ctx.GetInt("max_skip_count", 0);
  if (min_n < 1 || max_n < min_n || max_skip < 0) throw InvalidArg("TfIdfVectorizer: bad gram lengths or skip count");
  const std::vector<int64_t> counts = ctx.GetInts("ngram_counts"), indexes = ctx.GetInts("ngram_indexes");
  const std::vector<float> weights = ctx.GetFloats("weights");

  // Items as ids: int inputs as themselves; strings through the pool's dictionary (unknown words: -1).
  const bool strings = x.ElemType() == KILN_ELEM_STRING;
  std::vector<int64_t> pool;
  std::unordered_map<std::string, int64_t> dict;
  if (strings) {
    sdk::Attribute a = ctx.Attr("pool_strings");
    if (!a) throw InvalidArg("TfIdfVectorizer: string input needs pool_strings");
    for (std::string_view w : a.Strings()) {
      auto [it, added] = dict.emplace(std::string(w), static_cast<int64_t>(dict.size()));
      pool.push_back(it->second);
    }
  } else {
    pool = ctx.GetInts("pool_int64s");
  }
  // The pooled n-grams: ngram_counts[k] is where the (k+1)-grams start in the pool.
  std::map<std::vector<int64_t>, int64_t> ngrams;
  int64_t ngram_no = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    const int64_t n = static_cast<int64_t>(k) + 1;
    const int64_t begin = counts[k], end = k + 1 < counts.size() ? counts[k + 1] : static_cast<int64_t>(pool.size());
    if (begin < 0 || end > static_cast<int64_t>(pool.size()) || begin > end || (end - begin) % n != 0)
      throw InvalidArg("TfIdfVectorizer: ngram_counts do not fit the pool");
    for (int64_t p = begin; p < end; p += n) {
      if (ngram_no >= static_cast<int64_t>(indexes.size())) throw InvalidArg("TfIdfVectorizer: too few ngram_indexes");
      ngrams.emplace(std::vector<int64_t>(pool.begin() + p, pool.begin() + p + n),
                     indexes[static_cast<size_t>(ngram_no)]);
      ++ngram_no;
    }
  }
  int64_t out_size = 0;
  for (int64_t i : indexes) out_size = std::max(out_size, i + 1);

  auto dims = x.Dims();
  if (dims.empty() || dims.size() > 2) throw InvalidArg("TfIdfVectorizer: the input must be [C] or [B, C]");
  const int64_t rows = dims.size() == 2 ? dims[0] : 1, cols = dims.back();
  std::vector<int64_t> items(static_cast<size_t>(x.ElementCount()));
  if (strings) {
    for (size_t i = 0; i < items.size(); ++i) {
      auto it = dict.find(std::string(x.StringAt(i)));
      items[i] = it == dict.end() ? -1 : it->second;
    }
  } else {
    items = ReadInts(x, "TfIdfVectorizer's input");
  }

  const Dims out_dims = dims.size() == 2 ? Dims{rows, out_size} : Dims{out_size};
  float* out = TypedOut<float>(ctx.AllocOutput(0, KILN_ELEM_FLOAT, out_dims));
  std::vector<int64_t> gram;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t* row = items.data() + r * cols;
    float* freq = out + r * out_size;
    for (int64_t skip = 0; skip <= max_skip; ++skip) {
      const int64_t step = skip + 1;
      for (int64_t start = 0; start < cols; ++start) {
        gram.clear();
        for (int64_t n = 1; n <= max_n; ++n) {
          const int64_t pos = start + (n - 1) * step;
          if (pos >= cols) break;
          gram.push_back(row[pos]);
          if (n < min_n || (n == 1 && skip > 0)) continue;
          auto it = ngrams.find(gram);
          if (it != ngrams.end()) freq[it->second] += 1.0f;
        }
      }
    }
    for (int64_t i = 0; i < out_size; ++i) {
      const float w = static_cast<size_t>(i) < weights.size() ? weights[static_cast<size_t>(i)] : 1.0f;
      if (mode == "IDF")
        freq[i] = freq[i] > 0 ? w : 0.0f;
      else if (mode == "TFIDF")
        freq[i] *= w;
    }
  }
}

}  // namespace

KILN_PLUGIN_PART(TextTfIdf) {
  reg.AddKernelFn({.op_type = "TfIdfVectorizer", .since_version = 9, .flags = kThreadSafe}, TfIdfVectorizerKernel);
}
