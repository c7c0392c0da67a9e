"""A minimal RFC 6455 WebSocket client in the Python standard library, for the test and bench
clients that speak geolab's environment protocol as OpenEnv's generic client does (docs/protocol.md)
without installing a WebSocket library: test/interop/harness_client.py and bench/eval_cpu_client.py.
"""
import base64
import hashlib
import json
import os
import socket
import struct
import urllib.parse

class ConnectionClosed(Exception):
    pass


class WebSocket:
    GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    def __init__(self, url, timeout=60.0):
        parts = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        buffer = b""
        while b"\r\n\r\n" not in buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionClosed("closed during the handshake")
            buffer += chunk
        head, rest = buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        if " 101 " not in lines[0] + " ":
            raise ConnectionClosed(f"upgrade refused: {lines[0]}")
        accept = base64.b64encode(hashlib.sha1((key + self.GUID).encode()).digest()).decode()
        headers = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
        if headers.get("sec-websocket-accept") != accept:
            raise ConnectionClosed("bad Sec-WebSocket-Accept")
        self.pending = bytearray(rest)

    def _read(self, n):
        while len(self.pending) < n:
            chunk = self.sock.recv(max(65536, n - len(self.pending)))
            if not chunk:
                raise ConnectionClosed("connection closed")
            self.pending += chunk
        out = bytes(self.pending[:n])
        del self.pending[:n]
        return out

    def _send_frame(self, opcode, payload):
        mask = os.urandom(4)
        n = len(payload)
        if n < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 65536:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        # XOR the whole payload at once with a repeated mask, as one big integer.
        key = (mask * (n // 4 + 1))[:n]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big") if n else b""
        self.sock.sendall(header + mask + masked)

    def send_json(self, value):
        self._send_frame(0x1, json.dumps(value).encode())

    def recv_json(self):
        message = b""
        while True:
            first, second = self._read(2)
            opcode, fin = first & 0x0F, first & 0x80
            n = second & 0x7F
            if n == 126:
                (n,) = struct.unpack("!H", self._read(2))
            elif n == 127:
                (n,) = struct.unpack("!Q", self._read(8))
            mask = self._read(4) if second & 0x80 else None
            payload = self._read(n)
            if mask:
                key = (mask * (n // 4 + 1))[:n]
                payload = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")
            if opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                raise ConnectionClosed(f"closed by the server ({code})")
            if opcode == 0x9:
                self._send_frame(0xA, payload)
                continue
            if opcode in (0x0, 0x1, 0x2):
                message += payload
                if fin:
                    return json.loads(message)

    def close(self):
        try:
            self._send_frame(0x8, struct.pack("!H", 1000))
        finally:
            self.sock.close()


class EnvSocket:
    """One session on an environment server's /ws (docs/protocol.md): `ask` sends a message and
    returns the answer's data, an error answer raised with its code and message."""

    def __init__(self, base_url):
        self.base_url = base_url.rstrip("/")
        self.ws = WebSocket(self.base_url.replace("http://", "ws://", 1) + "/ws")

    def ask(self, message):
        self.ws.send_json(message)
        answer = self.ws.recv_json()
        if answer.get("type") == "error":
            raise RuntimeError(f"{answer['data'].get('code')}: {answer['data'].get('message')}")
        return answer["data"]
