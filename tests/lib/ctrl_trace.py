"""ctrl's trace file (controller/reports/TraceFile.h) and protobuf's wire
format, enough for the test scripts to read a trace, edit any field of it and
write it back with a valid checksum. Shared by tests/e2e/check_security.py and
tests/fuzz/fuzz.py; no protobuf package is needed.

A field is [number, wire type, value]: an int for varints, bytes otherwise
(the raw 8 or 4 bytes of fixed-size fields), in the message's order."""
import struct

MAGIC = b"CTRLTRC1"


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for c in data:
        h ^= c
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def seal(payload):
    """A trace file's bytes: magic, length, checksum, payload."""
    return MAGIC + struct.pack("<QQ", len(payload), fnv1a64(payload)) + payload


def unseal(data):
    """The payload of a trace file's bytes; ValueError when the magic, the
    length or the checksum is wrong."""
    if data[:8] != MAGIC:
        raise ValueError("no trace magic")
    length, checksum = struct.unpack("<QQ", data[8:24])
    payload = data[24:]
    if len(payload) != length or fnv1a64(payload) != checksum:
        raise ValueError("bad length or checksum")
    return payload


def read_trace(path):
    with open(path, "rb") as f:
        return parse(unseal(f.read()))


def write_trace(path, fields):
    with open(path, "wb") as f:
        f.write(seal(serialise(fields)))


def varint(data, i):
    v, shift = 0, 0
    while True:
        b = data[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, i


def put_varint(v):
    v &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def parse(data):
    """The fields of a message, in order; ValueError on a wire type protobuf
    does not have (3 and 4, the groups, are not used by ctrl)."""
    fields, i = [], 0
    while i < len(data):
        key, i = varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(data, i)
        elif wire == 2:
            n, i = varint(data, i)
            v, i = bytes(data[i:i + n]), i + n
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            v, i = bytes(data[i:i + size]), i + size
        else:
            raise ValueError(f"wire type {wire}")
        fields.append([number, wire, v])
    return fields


def serialise(fields):
    out = bytearray()
    for number, wire, v in fields:
        out += put_varint(number << 3 | wire)
        if wire == 0:
            out += put_varint(v)
        elif wire == 2:
            out += put_varint(len(v)) + v
        else:
            out += v
    return bytes(out)


def packed(v):
    """The values of a packed repeated varint field."""
    values, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        values.append(x)
    return values


def pack(values):
    return b"".join(put_varint(x) for x in values)
