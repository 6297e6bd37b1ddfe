"""Load-time rewrite of the packaged model so its int8 embedding tables stay int8 in memory.

The packaged all-MiniLM-L6-v2 stores every weight as an int8 tensor followed by
``Cast`` → ``Mul(scale)``. onnxruntime folds those constants when it loads the graph, so
each weight lives in memory as float32: the 30522 × 384 word-embedding table alone becomes
47 MB instead of 12 MB. For the two tables read by ``Gather`` (word and position
embeddings) the dequantisation commutes with the lookup, so this rewrite gathers the int8
rows and their per-row scales first and dequantises only the rows a batch uses:

    Gather(Mul(Cast(W_q), s), ids)  →  Mul(Cast(Gather(W_q, ids)), Gather(s, ids))

Each output element is the same float product as before (bit-identical vectors; tested),
and loading the model costs ~34 MB less resident memory (benchmarks/README.md, "Resident
memory"). The weights of the matrix multiplications are left as they are: running them on
int8 (``DequantizeLinear`` → ORT's ``MatMulNBits``, or ``DynamicQuantizeMatMul``) saved
another ~25 MB but cost 15–35 % of indexing throughput, or moved vectors to cosine 0.987.

The ONNX file is a protobuf; the few fields touched here are read and written directly
(wire format), so no ``onnx`` package is needed at run time. Anything unexpected leaves the
graph untouched: the rewrite returns ``None`` and the caller loads the file as shipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Field numbers from onnx.proto (ModelProto.graph, GraphProto.node, NodeProto.*).
MODEL_GRAPH = 7
GRAPH_NODE = 1
NODE_INPUT, NODE_OUTPUT, NODE_NAME, NODE_OP_TYPE, NODE_ATTRIBUTE = 1, 2, 3, 4, 5
LEN = 2  # wire type of length-delimited fields


def _varint(buf: memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _fields(buf: memoryview):
    """Yield (field number, wire type, payload, the field's raw bytes) for one message."""
    pos = 0
    while pos < len(buf):
        start = pos
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
            payload: memoryview | int = value
        elif wire == LEN:
            size, pos = _varint(buf, pos)
            payload, pos = buf[pos : pos + size], pos + size
        elif wire == 1:
            payload, pos = buf[pos : pos + 8], pos + 8
        elif wire == 5:
            payload, pos = buf[pos : pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        yield number, wire, payload, buf[start:pos]


def _len_field(number: int, payload: bytes) -> bytes:
    return _encode_varint(number << 3 | LEN) + _encode_varint(len(payload)) + payload


@dataclass
class _Node:
    """A NodeProto: its inputs, outputs and op type, and its other fields kept as raw bytes."""

    op_type: str
    inputs: list[str]
    outputs: list[str]
    rest: list[bytes] = field(default_factory=list)  # name, attributes, domain, ... as read

    @classmethod
    def parse(cls, buf: memoryview) -> _Node:
        node = cls("", [], [])
        for number, _, payload, raw in _fields(buf):
            if number == NODE_INPUT:
                node.inputs.append(bytes(payload).decode())
            elif number == NODE_OUTPUT:
                node.outputs.append(bytes(payload).decode())
            elif number == NODE_OP_TYPE:
                node.op_type = bytes(payload).decode()
            elif number != NODE_NAME:  # names must stay unique; rewritten nodes get none
                node.rest.append(bytes(raw))
        return node

    def int_attribute(self, name: str, default: int) -> int:
        """An INT attribute's value (AttributeProto: name is field 1, i is field 3)."""
        for raw in self.rest:
            number, _, payload, _ = next(_fields(memoryview(raw)))
            if number != NODE_ATTRIBUTE:
                continue
            found = dict((n, p) for n, _, p, _ in _fields(payload))  # type: ignore[arg-type]
            if bytes(found.get(1, b"")) == name.encode():
                value = found.get(3, 0)
                return value - (1 << 64) if value >= 1 << 63 else value  # int64 as a varint
        return default

    def encode(self) -> bytes:
        parts = [_len_field(NODE_INPUT, name.encode()) for name in self.inputs]
        parts += [_len_field(NODE_OUTPUT, name.encode()) for name in self.outputs]
        parts.append(_len_field(NODE_OP_TYPE, self.op_type.encode()))
        return b"".join(parts + self.rest)


def _rewrite_nodes(nodes: list[_Node], initializers: set[str]) -> list[_Node] | None:
    """The node list with each dequantised table's lookup moved before its dequantisation."""
    producer = {out: node for node in nodes for out in node.outputs}
    consumers: dict[str, list[_Node]] = {}
    for node in nodes:
        for name in node.inputs:
            consumers.setdefault(name, []).append(node)
    dropped: set[int] = set()
    replaced: dict[int, list[_Node]] = {}
    for gather in nodes:
        if gather.op_type != "Gather" or len(gather.inputs) != 2:
            continue
        mul = producer.get(gather.inputs[0])
        if mul is None or mul.op_type != "Mul" or len(consumers[mul.outputs[0]]) != 1:
            continue
        cast = producer.get(mul.inputs[0])
        scale = mul.inputs[1]
        if cast is None or cast.op_type != "Cast" or cast.inputs[0] not in initializers or scale not in initializers:
            continue
        if len(consumers[cast.outputs[0]]) != 1 or gather.int_attribute("axis", 0) != 0:
            continue  # per-row scales commute with a lookup of rows (axis 0) only
        table, ids, out = cast.inputs[0], gather.inputs[1], gather.outputs[0]
        replaced[id(gather)] = [
            _Node("Gather", [table, ids], [f"{out}/rows_int8"], list(gather.rest)),
            _Node("Gather", [scale, ids], [f"{out}/rows_scale"], list(gather.rest)),
            _Node("Cast", [f"{out}/rows_int8"], [f"{out}/rows_float"], list(cast.rest)),
            _Node("Mul", [f"{out}/rows_float", f"{out}/rows_scale"], [out], list(mul.rest)),
        ]
        dropped |= {id(cast), id(mul)}
    if not replaced:
        return None
    result: list[_Node] = []
    for node in nodes:
        if id(node) not in dropped:
            result.extend(replaced.get(id(node), [node]))
    return result


def gather_before_dequantize(model: bytes) -> bytes | None:
    """The serialized model with int8 lookup tables dequantised after the lookup, or ``None``
    when the graph has no such table (or is not shaped as expected)."""
    buf = memoryview(model)
    model_parts: list[bytes | memoryview] = []
    graph_done = False
    for number, wire, payload, raw in _fields(buf):
        if number != MODEL_GRAPH or wire != LEN or graph_done:
            model_parts.append(raw)
            continue
        node_slots: set[int] = set()
        nodes: list[_Node] = []
        graph_parts: list[bytes | memoryview] = []
        initializers: set[str] = set()
        for g_number, g_wire, g_payload, g_raw in _fields(payload):  # type: ignore[arg-type]
            if g_number == GRAPH_NODE and g_wire == LEN:
                node_slots.add(len(graph_parts))
                graph_parts.append(b"")
                nodes.append(_Node.parse(g_payload))  # type: ignore[arg-type]
                continue
            if g_number == 5 and g_wire == LEN:  # GraphProto.initializer: TensorProto.name is field 8
                for t_number, _, t_payload, _ in _fields(g_payload):  # type: ignore[arg-type]
                    if t_number == 8:
                        initializers.add(bytes(t_payload).decode())  # type: ignore[arg-type]
            graph_parts.append(g_raw)
        new_nodes = _rewrite_nodes(nodes, initializers)
        if new_nodes is None:
            return None
        first = min(node_slots)  # nodes are written where the first one was, in the new order
        graph_parts[first] = b"".join(_len_field(GRAPH_NODE, n.encode()) for n in new_nodes)
        graph = [part for i, part in enumerate(graph_parts) if i == first or i not in node_slots]
        # The graph's parts go into the model as they are: one copy of the 23 MB in all (the
        # final join), not one per nesting level; this runs beside a cold search's imports.
        model_parts.append(_encode_varint(MODEL_GRAPH << 3 | LEN) + _encode_varint(sum(map(len, graph))))
        model_parts.extend(graph)
        graph_done = True
    return b"".join(model_parts) if graph_done else None


# --- Opt-in: the weight matrices as int8 for query embedding (``int8_matmuls``) -----------------

MODEL_OPSET_IMPORT = 8
GRAPH_INITIALIZER = 5
TENSOR_DIMS, TENSOR_DATA_TYPE, TENSOR_NAME, TENSOR_RAW_DATA, TENSOR_DATA_LOCATION = 1, 2, 8, 9, 14
FLOAT, UINT8, INT8 = 1, 2, 3  # TensorProto.DataType
NODE_DOMAIN = 7
MS_DOMAIN = "com.microsoft"
INT8_BLOCK = 32  # activations are quantized per block of this many inputs: 32 kept query vectors at cosine ≥ 0.9996


@dataclass
class _Tensor:
    name: str
    dims: list[int]
    data_type: int
    raw: memoryview | None  # None: stored another way (typed fields, external data)


def _parse_tensor(buf: memoryview) -> _Tensor:
    tensor = _Tensor("", [], 0, None)
    for number, wire, payload, _ in _fields(buf):
        if number == TENSOR_DIMS and wire == 0:
            tensor.dims.append(payload)  # type: ignore[arg-type]
        elif number == TENSOR_DIMS and wire == LEN:  # packed
            pos = 0
            while pos < len(payload):  # type: ignore[arg-type]
                value, pos = _varint(payload, pos)  # type: ignore[arg-type]
                tensor.dims.append(value)
        elif number == TENSOR_DATA_TYPE:
            tensor.data_type = payload  # type: ignore[assignment]
        elif number == TENSOR_NAME:
            tensor.name = bytes(payload).decode()  # type: ignore[arg-type]
        elif number == TENSOR_RAW_DATA:
            tensor.raw = payload  # type: ignore[assignment]
        elif number == TENSOR_DATA_LOCATION and payload:
            tensor.raw = None
            break
    return tensor


def _encode_tensor(name: str, array) -> bytes:
    data_type = {"uint8": UINT8, "float32": FLOAT}[str(array.dtype)]
    dims = b"".join(_encode_varint(TENSOR_DIMS << 3) + _encode_varint(d) for d in array.shape)
    return (dims + _encode_varint(TENSOR_DATA_TYPE << 3) + _encode_varint(data_type)
            + _len_field(TENSOR_NAME, name.encode()) + _len_field(TENSOR_RAW_DATA, array.tobytes()))


def _int_attribute(name: str, value: int) -> bytes:
    """A NodeProto attribute field: AttributeProto(name=1, i=3, type=20 → INT)."""
    body = _len_field(1, name.encode()) + _encode_varint(3 << 3) + _encode_varint(value)
    return _len_field(NODE_ATTRIBUTE, body + _encode_varint(20 << 3) + _encode_varint(2))


def int8_matmuls(model: bytes) -> bytes | None:
    """The serialized model with each int8 weight matrix multiplied as int8 (onnxruntime's
    ``MatMulNBits``, 8 bits, ``accuracy_level`` 4: activations quantized per block of
    ``INT8_BLOCK``), or ``None`` when the graph has no such matrix or is not shaped as expected.

    ``MatMul(x, Mul(Cast(W_q), s))`` with ``W_q`` int8 [K, N] and one scale per column becomes
    ``MatMulNBits(x, W_q + 128, s, 128)``: the same weights, but read as 11 MB of int8 instead
    of 42 MB of float32, which is most of a short query's cost on a CPU. The activations' int8
    rounding moves vectors slightly (cosine ≥ 0.9996 to the float model's), so this is opt-in,
    for queries only (benchmarks/README.md, "Query latency, sixth pass").
    """
    import numpy as np

    buf = memoryview(model)
    parts: list[bytes | memoryview] = []
    graph_done = has_domain = False
    for number, wire, payload, raw in _fields(buf):
        if number == MODEL_OPSET_IMPORT and wire == LEN:
            found = {n: p for n, _, p, _ in _fields(payload)}  # type: ignore[arg-type]
            has_domain |= bytes(found.get(1, b"")) == MS_DOMAIN.encode()
        if number != MODEL_GRAPH or wire != LEN or graph_done:
            parts.append(raw)
            continue
        slots: list[int] = []
        nodes: list[_Node] = []
        tensors: dict[str, tuple[int, _Tensor]] = {}
        graph_parts: list[bytes | memoryview] = []
        for g_number, g_wire, g_payload, g_raw in _fields(payload):  # type: ignore[arg-type]
            if g_number == GRAPH_NODE and g_wire == LEN:
                slots.append(len(graph_parts))
                nodes.append(_Node.parse(g_payload))  # type: ignore[arg-type]
            elif g_number == GRAPH_INITIALIZER and g_wire == LEN:
                tensor = _parse_tensor(g_payload)  # type: ignore[arg-type]
                tensors[tensor.name] = (len(graph_parts), tensor)
            graph_parts.append(g_raw)
        producer = {out: node for node in nodes for out in node.outputs}
        uses: dict[str, int] = {}
        for node in nodes:
            for name in node.inputs:
                uses[name] = uses.get(name, 0) + 1
        replaced: dict[int, _Node] = {}
        dropped_nodes: set[int] = set()
        dropped_tensors: set[str] = set()
        added: list[bytes] = []
        for node in nodes:
            if node.op_type != "MatMul" or len(node.inputs) != 2:
                continue
            mul = producer.get(node.inputs[1])
            if mul is None or mul.op_type != "Mul" or uses.get(mul.outputs[0]) != 1:
                continue
            cast = producer.get(mul.inputs[0])
            if cast is None or cast.op_type != "Cast" or uses.get(cast.outputs[0]) != 1:
                continue
            weight, scale = (tensors.get(name, (0, None))[1] for name in (cast.inputs[0], mul.inputs[1]))
            if weight is None or scale is None or weight.raw is None or scale.raw is None:
                continue
            if weight.data_type != INT8 or scale.data_type != FLOAT or len(weight.dims) != 2:
                continue
            k, n = weight.dims
            if scale.dims not in ([n], [1, n]) or k % INT8_BLOCK or uses.get(weight.name) != 1 or uses.get(scale.name) != 1:
                continue
            blocks = k // INT8_BLOCK
            q = np.frombuffer(weight.raw, dtype=np.int8).reshape(k, n)
            base = f"{node.outputs[0]}/int8"
            b = (q.T.astype(np.int16) + 128).astype(np.uint8).reshape(n, blocks, INT8_BLOCK)
            s = np.repeat(np.frombuffer(scale.raw, dtype=np.float32)[:, None], blocks, axis=1)
            added += [_len_field(GRAPH_INITIALIZER, _encode_tensor(f"{base}/b", b)),
                      _len_field(GRAPH_INITIALIZER, _encode_tensor(f"{base}/scales", np.ascontiguousarray(s))),
                      _len_field(GRAPH_INITIALIZER, _encode_tensor(f"{base}/zero", np.full((n, blocks), 128, np.uint8)))]
            attrs = [_int_attribute("K", k), _int_attribute("N", n), _int_attribute("bits", 8),
                     _int_attribute("block_size", INT8_BLOCK), _int_attribute("accuracy_level", 4)]
            replaced[id(node)] = _Node("MatMulNBits", [node.inputs[0], f"{base}/b", f"{base}/scales", f"{base}/zero"],
                                       list(node.outputs), [*attrs, _len_field(NODE_DOMAIN, MS_DOMAIN.encode())])
            dropped_nodes |= {id(mul), id(cast)}
            dropped_tensors |= {weight.name, scale.name}
        if not replaced:
            return None
        skip = set(slots) | {tensors[name][0] for name in dropped_tensors}
        new_nodes = [replaced.get(id(node), node) for node in nodes if id(node) not in dropped_nodes]
        graph = [part for i, part in enumerate(graph_parts) if i not in skip]
        graph += [_len_field(GRAPH_NODE, node.encode()) for node in new_nodes] + added
        parts.append(_encode_varint(MODEL_GRAPH << 3 | LEN) + _encode_varint(sum(map(len, graph))))
        parts.extend(graph)
        graph_done = True
    if not graph_done:
        return None
    if not has_domain:
        parts.append(_len_field(MODEL_OPSET_IMPORT, _len_field(1, MS_DOMAIN.encode()) + _encode_varint(2 << 3) + _encode_varint(1)))
    return b"".join(parts)
