"""Transformer models as PyTorch's exporter writes HuggingFace's code:
a BERT encoder (BertModel) and a LLaMA-style decoder (LlamaForCausalLM)."""

import numpy as np
from onnx import TensorProto, numpy_helper

from builder import FLOAT_MIN, INT64_MAX, Builder, dims


def _seq_dim(seq, dynamic_seq):
    return "sequence" if dynamic_seq else seq


# ---------------------------------------------------------------- shared pieces
def _layer_norm(b, x, pname, hidden, eps):
    """nn.LayerNorm: the LayerNormalization op from opset 17, else PyTorch's
    opset<17 decomposition."""
    w = b.param(pname + ".weight", b.uniform((hidden,), 0.9, 1.1))
    bias = b.param(pname + ".bias", b.uniform((hidden,), -0.02, 0.02))
    if b.opset >= 17 and not getattr(b, "decompose_layernorm", False):
        return b.op("LayerNormalization", [x, w, bias], axis=-1, epsilon=eps)
    mean = b.op("ReduceMean", [x], axes=[-1], keepdims=1)
    d = b.op("Sub", [x, mean])
    var = b.op("ReduceMean", [b.op("Pow", [d, b.fconst(2.0)])], axes=[-1], keepdims=1)
    den = b.op("Sqrt", [b.op("Add", [var, b.fconst(eps)])])
    y = b.op("Div", [d, den])
    y = b.op("Mul", [y, w])
    return b.op("Add", [y, bias])


def _slice_to(b, data, end, axis):
    """data[..., :end] along `axis` with a traced end (a 0-d int64)."""
    return b.op("Slice", [data, b.const([0]), b.unsqueeze(end, [0]), b.const([axis]), b.const([1])])


# ---------------------------------------------------------------- BERT
def bert(batch_symbolic=False, seed=0, opset=13, layers=1, hidden=768, heads=None, ffn=None,
         seq=128, vocab=30522, max_positions=512, type_vocab=2, eps=1e-12, dynamic_seq=False,
         pretransposed=False):
    heads = heads or max(1, hidden // 64)
    ffn = ffn or 4 * hidden
    if hidden % heads:
        raise ValueError("hidden %d not divisible by heads %d" % (hidden, heads))
    head_dim = hidden // heads
    b = Builder(opset=opset, seed=seed)
    b.decompose_layernorm = opset < 17
    s_dim = _seq_dim(seq, dynamic_seq)
    ids = b.input("input_ids", TensorProto.INT64, dims(batch_symbolic, s_dim))
    mask = b.input("attention_mask", TensorProto.INT64, dims(batch_symbolic, s_dim))

    def lin(x, prefix, fi, fo):
        return b.linear(x, prefix, fi, fo, pretransposed=pretransposed)

    # BertModel.forward: input_shape = input_ids.size(); batch_size, seq_length = input_shape
    batch_size, seq_length = b.sizes(ids, [0, 1])
    # token_type_ids default: the registered buffer, sliced and expanded
    tt_buf = b.param("embeddings.token_type_ids", np.zeros((1, max_positions), np.int64))
    tt = _slice_to(b, tt_buf, seq_length, 1)
    tt = b.expand(tt, [batch_size, seq_length])
    # get_extended_attention_mask: mask[:, None, None, :], (1.0 - m) * finfo.min
    m = b.unsqueeze(b.unsqueeze(mask, [1]), [2])
    m = b.op("Cast", [m], to=TensorProto.FLOAT)
    m = b.op("Sub", [b.fconst(1.0), m])
    ext_mask = b.op("Mul", [m, b.fconst(FLOAT_MIN)])

    with b.scope("embeddings"):
        pos_buf = b.param("embeddings.position_ids",
                          np.arange(max_positions, dtype=np.int64).reshape(1, max_positions))
        pos = _slice_to(b, pos_buf, b.size(ids, 1), 1)
        with b.scope("word_embeddings"):
            h = b.op("Gather", [b.param("embeddings.word_embeddings.weight",
                                        b.randn((vocab, hidden), 0.02)), ids], axis=0)
        with b.scope("token_type_embeddings"):
            t = b.op("Gather", [b.param("embeddings.token_type_embeddings.weight",
                                        b.randn((type_vocab, hidden), 0.02)), tt], axis=0)
        h = b.op("Add", [h, t])
        with b.scope("position_embeddings"):
            p = b.op("Gather", [b.param("embeddings.position_embeddings.weight",
                                        b.randn((max_positions, hidden), 0.02)), pos], axis=0)
        h = b.op("Add", [h, p])
        with b.scope("LayerNorm"):
            h = _layer_norm(b, h, "embeddings.LayerNorm", hidden, eps)

    with b.scope("encoder"):
        for i in range(layers):
            pre = "encoder.layer.%d" % i
            with b.scope("layer.%d" % i):
                h = _bert_layer(b, h, ext_mask, pre, hidden, heads, head_dim, ffn, eps, lin)

    last = h
    with b.scope("pooler"):
        first = b.op("Gather", [last, b.const(0)], axis=1)  # hidden_states[:, 0]
        with b.scope("dense"):
            pooled = b.linear(first, "pooler.dense", hidden, hidden, rank2=True)
        with b.scope("activation"):
            pooled = b.op("Tanh", [pooled])
    b.output(last, "last_hidden_state", TensorProto.FLOAT, dims(batch_symbolic, s_dim, hidden))
    b.output(pooled, "pooler_output", TensorProto.FLOAT, dims(batch_symbolic, hidden))
    return b.model("BERT encoder (HF BertModel layout), %d layer(s), hidden %d, %d heads, ffn %d, "
                   "random weights, seed %d" % (layers, hidden, heads, ffn, seed))


def _bert_layer(b, h, ext_mask, pre, hidden, heads, head_dim, ffn, eps, lin):
    with b.scope("attention"):
        with b.scope("self"):
            def transpose_for_scores(x):
                # new_x_shape = x.size()[:-1] + (heads, head_dim); x.view(...).permute(0, 2, 1, 3)
                x = b.view(x, [b.size(x, 0), b.size(x, 1), heads, head_dim])
                return b.op("Transpose", [x], perm=[0, 2, 1, 3])

            with b.scope("query"):
                q = lin(h, pre + ".attention.self.query", hidden, hidden)
            with b.scope("key"):
                k = lin(h, pre + ".attention.self.key", hidden, hidden)
            k = transpose_for_scores(k)
            with b.scope("value"):
                v = lin(h, pre + ".attention.self.value", hidden, hidden)
            v = transpose_for_scores(v)
            q = transpose_for_scores(q)
            scores = b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])])
            scores = b.op("Div", [scores, b.fconst(float(np.sqrt(head_dim)))])
            scores = b.op("Add", [scores, ext_mask])
            probs = b.op("Softmax", [scores], axis=-1)
            ctx = b.op("MatMul", [probs, v])
            ctx = b.op("Transpose", [ctx], perm=[0, 2, 1, 3])
            # new_context_layer_shape = context_layer.size()[:-2] + (all_head_size,)
            ctx = b.view(ctx, [b.size(ctx, 0), b.size(ctx, 1), hidden])
        with b.scope("output"):
            with b.scope("dense"):
                a = lin(ctx, pre + ".attention.output.dense", hidden, hidden)
            a = b.op("Add", [a, h])
            with b.scope("LayerNorm"):
                h = _layer_norm(b, a, pre + ".attention.output.LayerNorm", hidden, eps)
    with b.scope("intermediate"):
        with b.scope("dense"):
            x = lin(h, pre + ".intermediate.dense", hidden, ffn)
        with b.scope("intermediate_act_fn"):  # exact GELU: x * 0.5 * (1 + erf(x / sqrt(2)))
            g = b.op("Div", [x, b.fconst(1.4142135381698608)])
            g = b.op("Erf", [g])
            g = b.op("Add", [g, b.fconst(1.0)])
            g = b.op("Mul", [x, g])
            x = b.op("Mul", [g, b.fconst(0.5)])
    with b.scope("output"):
        with b.scope("dense"):
            x = lin(x, pre + ".output.dense", ffn, hidden)
        x = b.op("Add", [x, h])
        with b.scope("LayerNorm"):
            h = _layer_norm(b, x, pre + ".output.LayerNorm", hidden, eps)
    return h


# ---------------------------------------------------------------- LLaMA
def llama(batch_symbolic=False, seed=0, opset=17, layers=1, hidden=512, heads=None, ffn=None,
          seq=128, vocab=8192, eps=1e-6, rope_theta=10000.0, dynamic_seq=False,
          pretransposed=False):
    heads = heads or 8
    if ffn is None:  # LLaMA's rule: 2/3 of 4*hidden, rounded up to a multiple of 32 (512 -> 1376)
        ffn = -(-int(2 * 4 * hidden / 3) // 32) * 32
    if hidden % heads or (hidden // heads) % 2:
        raise ValueError("hidden %d must split into %d heads of even size" % (hidden, heads))
    head_dim = hidden // heads
    b = Builder(opset=opset, seed=seed)
    s_dim = _seq_dim(seq, dynamic_seq)
    ids = b.input("input_ids", TensorProto.INT64, dims(batch_symbolic, s_dim))

    def lin(x, prefix, fi, fo):
        return b.linear(x, prefix, fi, fo, bias=False, pretransposed=pretransposed)

    with b.scope("model"):
        with b.scope("embed_tokens"):
            h = b.op("Gather", [b.param("model.embed_tokens.weight",
                                        b.randn((vocab, hidden), 0.02)), ids], axis=0)
        # cache_position = torch.arange(0, inputs_embeds.shape[1]); position_ids = cache_position.unsqueeze(0)
        cache_position = b.op("Range", [b.const(0), b.size(h, 1), b.const(1)])
        position_ids = b.unsqueeze(cache_position, [0])
        causal_mask = _causal_mask(b, h, cache_position)
        with b.scope("rotary_emb"):
            cos, sin = _rotary(b, position_ids, head_dim, rope_theta)
        for i in range(layers):
            with b.scope("layers.%d" % i):
                h = _llama_layer(b, h, "model.layers.%d" % i, causal_mask, cos, sin,
                                 hidden, heads, head_dim, ffn, eps, lin)
        with b.scope("norm"):
            h = _rms_norm(b, h, "model.norm", hidden, eps)
    with b.scope("lm_head"):
        logits = lin(h, "lm_head", hidden, vocab)
    b.output(logits, "logits", TensorProto.FLOAT, dims(batch_symbolic, s_dim, vocab))
    return b.model("LLaMA-style decoder (HF LlamaForCausalLM layout), %d layer(s), hidden %d, "
                   "%d heads, ffn %d, vocab %d, random weights, seed %d"
                   % (layers, hidden, heads, ffn, vocab, seed))


def _causal_mask(b, h, cache_position):
    """HF _prepare_4d_causal_attention_mask_with_cache_position without a padding mask:
    full(min) -> triu(1) -> *= arange(target) > cache_position[:, None] -> [None, None].expand(B, 1, -1, -1)."""
    batch_size = b.size(h, 0)
    seq_len = b.size(h, 1)
    target_len = b.size(h, 1)
    full = b.op("ConstantOfShape", [b.shape_list([seq_len, target_len])],
                value=numpy_helper.from_array(np.array([FLOAT_MIN], np.float32)))
    m = full
    if b.opset >= 14:  # torch.triu exports as Trilu (opset 14); below, the Greater mask alone is causal
        m = b.op("Trilu", [m, b.const(1)], upper=1)
    ar = b.op("Range", [b.const(0), target_len, b.const(1)])
    gt = b.op("Greater", [ar, b.reshape(cache_position, b.const([-1, 1]))])
    m = b.op("Mul", [m, b.op("Cast", [gt], to=TensorProto.FLOAT)])
    m = b.unsqueeze(b.unsqueeze(m, [0]), [1])
    return b.expand(m, [batch_size, 1, -1, -1])


def _rotary(b, position_ids, head_dim, theta):
    """LlamaRotaryEmbedding.forward: cos/sin from position_ids and the inv_freq buffer."""
    inv = 1.0 / (theta ** (np.arange(0, head_dim, 2, dtype=np.int64).astype(np.float32) / head_dim))
    inv_freq = b.param("model.rotary_emb.inv_freq", inv.astype(np.float32))
    # inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
    f = b.op("Cast", [b.unsqueeze(b.unsqueeze(inv_freq, [0]), [2])], to=TensorProto.FLOAT)
    f = b.expand(f, [b.size(position_ids, 0), -1, 1])
    # position_ids[:, None, :].float()
    p = b.op("Cast", [b.unsqueeze(position_ids, [1])], to=TensorProto.FLOAT)
    freqs = b.op("Transpose", [b.op("MatMul", [f, p])], perm=[0, 2, 1])
    emb = b.op("Concat", [freqs, freqs], axis=-1)
    cos = b.op("Mul", [b.op("Cos", [emb]), b.fconst(1.0)])  # * attention_scaling
    sin = b.op("Mul", [b.op("Sin", [emb]), b.fconst(1.0)])
    return (b.op("Cast", [cos], to=TensorProto.FLOAT),  # .to(dtype=x.dtype)
            b.op("Cast", [sin], to=TensorProto.FLOAT))


def _rms_norm(b, x, pname, hidden, eps):
    w = b.param(pname + ".weight", b.uniform((hidden,), 0.9, 1.1))
    x = b.op("Cast", [x], to=TensorProto.FLOAT)  # .to(torch.float32)
    var = b.op("ReduceMean", [b.op("Pow", [x, b.fconst(2.0)])], axes=[-1], keepdims=1)
    r = b.op("Reciprocal", [b.op("Sqrt", [b.op("Add", [var, b.fconst(eps)])])])  # rsqrt
    x = b.op("Mul", [x, r])
    x = b.op("Cast", [x], to=TensorProto.FLOAT)  # .to(input_dtype)
    return b.op("Mul", [w, x])


def _rotate_half(b, x):
    half = b.op("Div", [b.size(x, 3), b.const(2)])
    x1 = b.op("Slice", [x, b.const([0]), b.unsqueeze(half, [0]), b.const([3]), b.const([1])])
    half = b.op("Div", [b.size(x, 3), b.const(2)])
    x2 = b.op("Slice", [x, b.unsqueeze(half, [0]), b.const([INT64_MAX]), b.const([3]), b.const([1])])
    return b.op("Concat", [b.op("Neg", [x2]), x1], axis=-1)


def _llama_layer(b, h, pre, causal_mask, cos, sin, hidden, heads, head_dim, ffn, eps, lin):
    residual = h
    with b.scope("input_layernorm"):
        h = _rms_norm(b, h, pre + ".input_layernorm", hidden, eps)
    with b.scope("self_attn"):
        bsz, q_len = b.size(h, 0), b.size(h, 1)  # input_shape = hidden_states.shape[:-1]
        hidden_shape = [bsz, q_len, -1, head_dim]
        with b.scope("q_proj"):
            q = lin(h, pre + ".self_attn.q_proj", hidden, hidden)
        q = b.op("Transpose", [b.view(q, hidden_shape)], perm=[0, 2, 1, 3])
        with b.scope("k_proj"):
            k = lin(h, pre + ".self_attn.k_proj", hidden, hidden)
        k = b.op("Transpose", [b.view(k, hidden_shape)], perm=[0, 2, 1, 3])
        with b.scope("v_proj"):
            v = lin(h, pre + ".self_attn.v_proj", hidden, hidden)
        v = b.op("Transpose", [b.view(v, hidden_shape)], perm=[0, 2, 1, 3])
        # apply_rotary_pos_emb(q, k, cos, sin): cos.unsqueeze(1)
        c = b.unsqueeze(cos, [1])
        s = b.unsqueeze(sin, [1])
        q = b.op("Add", [b.op("Mul", [q, c]), b.op("Mul", [_rotate_half(b, q), s])])
        k = b.op("Add", [b.op("Mul", [k, c]), b.op("Mul", [_rotate_half(b, k), s])])
        # eager_attention_forward
        w = b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])])
        w = b.op("Mul", [w, b.fconst(float(head_dim) ** -0.5)])
        # causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]
        cm = _slice_to(b, causal_mask, b.size(k, 2), 3)
        w = b.op("Add", [w, cm])
        w = b.op("Softmax", [w], axis=-1)
        w = b.op("Cast", [w], to=TensorProto.FLOAT)  # softmax(dtype=float32).to(query.dtype)
        o = b.op("MatMul", [w, v])
        o = b.op("Transpose", [o], perm=[0, 2, 1, 3])
        o = b.view(o, [bsz, q_len, -1])  # reshape(*input_shape, -1)
        with b.scope("o_proj"):
            o = lin(o, pre + ".self_attn.o_proj", hidden, hidden)
    h = b.op("Add", [residual, o])
    residual = h
    with b.scope("post_attention_layernorm"):
        h = _rms_norm(b, h, pre + ".post_attention_layernorm", hidden, eps)
    with b.scope("mlp"):
        with b.scope("gate_proj"):
            g = lin(h, pre + ".mlp.gate_proj", hidden, ffn)
        with b.scope("act_fn"):  # SiLU = x * sigmoid(x)
            g = b.op("Mul", [g, b.op("Sigmoid", [g])])
        with b.scope("up_proj"):
            u = lin(h, pre + ".mlp.up_proj", hidden, ffn)
        x = b.op("Mul", [g, u])
        with b.scope("down_proj"):
            x = lin(x, pre + ".mlp.down_proj", ffn, hidden)
    return b.op("Add", [residual, x])
