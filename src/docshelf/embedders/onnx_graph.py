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
