// ONNX model bytes for a one-node graph, written here so the benchmark needs
// no model file: the protobuf wire format of ModelProto (onnx/onnx.proto) for
// the few fields a single operator needs. Inputs and outputs are float
// tensors of shape [rows, n], rows 1 unless given (TopK: values float and indices int64, K an int64
// initializer).
//
//   softmaxModel('Softmax', n[, rows])  y = Softmax(x, axis = -1) over [rows, n] (opset 13)
//   softmaxModel('LogSoftmax', n)   y = LogSoftmax(x, axis = -1)
//   topkModel(n, k)                 values, indices = TopK(x, K = [k], axis = -1)

const FLOAT = 1, INT64 = 7; // TensorProto.DataType
const ATTR_INT = 2; // AttributeProto.AttributeType

function varint(v) {
  const out = [];
  let x = BigInt.asUintN(64, BigInt(v));
  do {
    let b = Number(x & 0x7fn);
    x >>= 7n;
    if (x) b |= 0x80;
    out.push(b);
  } while (x);
  return out;
}
const key = (field, wire) => varint((field << 3) | wire);
const int = (field, v) => [...key(field, 0), ...varint(v)];
const bytes = (field, b) => [...key(field, 2), ...varint(b.length), ...b];
const str = (field, s) => bytes(field, [...new TextEncoder().encode(s)]);
const msg = (field, parts) => bytes(field, parts.flat());

const dims = (shape) => shape.map((d) => msg(1, [int(1, d)])); // TensorShapeProto.Dimension
const valueInfo = (field, name, elem, shape) =>
  msg(field, [str(1, name), msg(2, [msg(1, [int(1, elem), msg(2, dims(shape))])])]);
const attrInt = (name, v) => msg(5, [str(1, name), int(3, v), int(20, ATTR_INT)]);

function model(nodeParts, inputs, outputs, initializers = []) {
  const graph = [msg(1, nodeParts), str(2, 'g'), ...initializers, ...inputs, ...outputs];
  return new Uint8Array([
    ...int(1, 8), // ir_version
    ...str(2, 'softscope-bench'),
    ...msg(7, graph),
    ...msg(8, [str(1, ''), int(2, 13)]), // opset_import: ai.onnx 13
  ]);
}

export function softmaxModel(op, n, rows = 1) {
  return model([str(1, 'x'), str(2, 'y'), str(3, 'n'), str(4, op), attrInt('axis', -1)],
    [valueInfo(11, 'x', FLOAT, [rows, n])], [valueInfo(12, 'y', FLOAT, [rows, n])]);
}

export function topkModel(n, k) {
  const K = msg(5, [int(1, 1), int(2, INT64), bytes(7, varint(k)), str(8, 'K')]); // TensorProto, packed int64_data
  return model([str(1, 'x'), str(1, 'K'), str(2, 'values'), str(2, 'indices'), str(3, 'n'), str(4, 'TopK'),
    attrInt('axis', -1), attrInt('largest', 1), attrInt('sorted', 1)],
  [valueInfo(11, 'x', FLOAT, [1, n])],
  [valueInfo(12, 'values', FLOAT, [1, k]), valueInfo(12, 'indices', INT64, [1, k])], [K]);
}
