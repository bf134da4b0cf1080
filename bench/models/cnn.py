"""torchvision-style CNNs: ResNet-50 and MobileNetV2, as exported in eval mode
with BatchNormalization left as nodes (do_constant_folding=False)."""

import numpy as np
from onnx import TensorProto

from builder import Builder, dims


def _conv(b, x, pname, cin, cout, k, stride=1, pad=0, groups=1):
    fan_in = (cin // groups) * k * k
    w = b.param(pname + ".weight", b.randn((cout, cin // groups, k, k), np.sqrt(2.0 / fan_in)))
    return b.op("Conv", [x, w], dilations=[1, 1], group=groups, kernel_shape=[k, k],
                pads=[pad] * 4, strides=[stride, stride])


def _bn(b, x, pname, c, gamma=(0.7, 1.1)):
    ins = [x,
           b.param(pname + ".weight", b.uniform((c,), *gamma)),
           b.param(pname + ".bias", b.uniform((c,), -0.1, 0.1)),
           b.param(pname + ".running_mean", b.uniform((c,), -0.1, 0.1)),
           b.param(pname + ".running_var", b.uniform((c,), 0.8, 1.5))]
    return b.op("BatchNormalization", ins, epsilon=1e-5, momentum=0.9)


def _flatten_view(b, x):
    """x.view(x.size(0), -1): the flatten before the classifier as a shape chain."""
    return b.view(x, [b.size(x, 0), -1])


def _classifier_out(b, x, batch_symbolic, classes):
    return b.output(x, "output", TensorProto.FLOAT, dims(batch_symbolic, classes))


# ---------------------------------------------------------------- ResNet-50
def resnet50(batch_symbolic=False, seed=0, opset=17, classes=1000, image=224, width=64):
    b = Builder(opset=opset, seed=seed)
    x = b.input("input", TensorProto.FLOAT, dims(batch_symbolic, 3, image, image))

    with b.scope("conv1"):
        x = _conv(b, x, "conv1", 3, width, 7, stride=2, pad=3)
    with b.scope("bn1"):
        x = _bn(b, x, "bn1", width)
    with b.scope("relu"):
        x = b.op("Relu", [x])
    with b.scope("maxpool"):
        x = b.op("MaxPool", [x], ceil_mode=0, dilations=[1, 1], kernel_shape=[3, 3],
                 pads=[1, 1, 1, 1], strides=[2, 2])

    cin = width
    for li, (blocks, planes, stride) in enumerate(
            [(3, width, 1), (4, width * 2, 2), (6, width * 4, 2), (3, width * 8, 2)], start=1):
        layer = "layer%d" % li
        with b.scope(layer):
            for bi in range(blocks):
                blk = "%s.%d" % (layer, bi)
                s = stride if bi == 0 else 1
                cout = planes * 4
                with b.scope(blk):
                    identity = x
                    with b.scope("conv1"):
                        y = _conv(b, x, blk + ".conv1", cin, planes, 1)
                    with b.scope("bn1"):
                        y = _bn(b, y, blk + ".bn1", planes)
                    with b.scope("relu"):
                        y = b.op("Relu", [y])
                    with b.scope("conv2"):  # torchvision v1.5: the stride is on the 3x3
                        y = _conv(b, y, blk + ".conv2", planes, planes, 3, stride=s, pad=1)
                    with b.scope("bn2"):
                        y = _bn(b, y, blk + ".bn2", planes)
                    with b.scope("relu_1"):
                        y = b.op("Relu", [y])
                    with b.scope("conv3"):
                        y = _conv(b, y, blk + ".conv3", planes, cout, 1)
                    with b.scope("bn3"):
                        # the last BN of a residual branch is small (as trained ResNets have
                        # it, cf. zero_init_residual) so the residual stream stays O(1)
                        y = _bn(b, y, blk + ".bn3", cout, gamma=(0.1, 0.4))
                    if bi == 0:
                        with b.scope("downsample", "downsample.0"):
                            identity = _conv(b, x, blk + ".downsample.0", cin, cout, 1, stride=s)
                        with b.scope("downsample", "downsample.1"):
                            identity = _bn(b, identity, blk + ".downsample.1", cout)
                    y = b.op("Add", [y, identity])
                    with b.scope("relu_2"):
                        x = b.op("Relu", [y])
                cin = cout

    with b.scope("avgpool"):
        x = b.op("GlobalAveragePool", [x])
    x = _flatten_view(b, x)
    with b.scope("fc"):
        x = b.linear(x, "fc", cin, classes, rank2=True)
    _classifier_out(b, x, batch_symbolic, classes)
    return b.model("ResNet-50 (torchvision layout), random weights, seed %d" % seed)


# ---------------------------------------------------------------- MobileNetV2
def _make_divisible(v, divisor=8):
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def _conv_bn_relu6(b, x, pname, cin, cout, k, stride=1, groups=1):
    """Conv2dNormActivation(..., activation_layer=ReLU6): scopes pname.0/.1/.2."""
    with b.scope(pname + ".0"):
        x = _conv(b, x, pname + ".0", cin, cout, k, stride=stride, pad=(k - 1) // 2, groups=groups)
    with b.scope(pname + ".1"):
        x = _bn(b, x, pname + ".1", cout)
    with b.scope(pname + ".2"):  # ReLU6 -> Clip(x, Constant 0, Constant 6)
        x = b.op("Clip", [x, b.fconst(0.0), b.fconst(6.0)])
    return x


def mobilenetv2(batch_symbolic=False, seed=0, opset=17, classes=1000, image=224, width_mult=1.0):
    b = Builder(opset=opset, seed=seed)
    x = b.input("input", TensorProto.FLOAT, dims(batch_symbolic, 3, image, image))
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    cin = _make_divisible(32 * width_mult)
    last = _make_divisible(1280 * max(1.0, width_mult))
    with b.scope("features"):
        with b.scope("features.0"):
            x = _conv_bn_relu6(b, x, "features.0", 3, cin, 3, stride=2)
        idx = 1
        for t, c, n, s in settings:
            cout = _make_divisible(c * width_mult)
            for i in range(n):
                stride = s if i == 0 else 1
                hidden = int(round(cin * t))
                name = "features.%d" % idx
                with b.scope(name, "conv"):
                    inp = x
                    j = 0
                    if t != 1:
                        with b.scope("%s.conv.%d" % (name, j)):
                            x = _conv_bn_relu6(b, x, "%s.conv.%d" % (name, j), cin, hidden, 1)
                        j += 1
                    with b.scope("%s.conv.%d" % (name, j)):
                        x = _conv_bn_relu6(b, x, "%s.conv.%d" % (name, j), hidden, hidden, 3,
                                           stride=stride, groups=hidden)
                    j += 1
                    with b.scope("%s.conv.%d" % (name, j)):
                        x = _conv(b, x, "%s.conv.%d" % (name, j), hidden, cout, 1)
                    j += 1
                    with b.scope("%s.conv.%d" % (name, j)):
                        x = _bn(b, x, "%s.conv.%d" % (name, j), cout)
                if stride == 1 and cin == cout:
                    with b.scope(name):
                        x = b.op("Add", [inp, x])
                cin = cout
                idx += 1
        name = "features.%d" % idx
        with b.scope(name):
            x = _conv_bn_relu6(b, x, name, cin, last, 1)
    # older torchvision: x.mean([2, 3]); kept as ReduceMean(keepdims=1) + view so the
    # classifier input also goes through a flatten shape chain
    x = b.op("ReduceMean", [x], axes=[2, 3], keepdims=1)
    x = _flatten_view(b, x)
    with b.scope("classifier", "classifier.1"):  # classifier.0 is Dropout: gone in eval export
        x = b.linear(x, "classifier.1", last, classes, rank2=True)
    _classifier_out(b, x, batch_symbolic, classes)
    return b.model("MobileNetV2 (torchvision layout), random weights, seed %d" % seed)
