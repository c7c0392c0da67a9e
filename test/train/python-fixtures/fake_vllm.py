"""A stand-in for `vllm serve`: the argv `geolab train serve` builds, a real OpenAI-compatible server.

`python fake_vllm.py serve MODEL --enable-lora --lora-modules NAME=PATH ... --host H --port P` listens on
H:P (standard library only), lists MODEL and the LoRA module NAME at /v1/models (the module's parent
is MODEL, as vLLM lists it) and answers /v1/chat/completions for either; an unknown model is a 404,
as vLLM answers it. It refuses to start, as vLLM does, when the adapter folder has no
adapter_config.json. Each chat request body is appended as one JSON line to $FAKE_VLLM_RECORD.
Knobs (environment): FAKE_VLLM_FAIL=1 exits 1 before serving (a model that does not load).
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

args = sys.argv[1:]
if args[:1] != ["serve"] or len(args) < 2:
    sys.exit("usage: vllm serve MODEL [options]")
model = args[1]
options = {}
i = 2
while i < len(args):
    key = args[i]
    if key.startswith("--") and i + 1 < len(args) and not args[i + 1].startswith("--"):
        options[key] = args[i + 1]
        i += 2
    else:
        options[key] = True
        i += 1

print(f"INFO vllm stand-in: serving {model} with {json.dumps(options)}", flush=True)
if os.environ.get("FAKE_VLLM_FAIL") == "1":
    print("RuntimeError: Engine core initialization failed. See root cause above.", file=sys.stderr, flush=True)
    sys.exit(1)
name, _, adapter = str(options.get("--lora-modules", "")).partition("=")
if not os.path.isfile(os.path.join(adapter, "adapter_config.json")):
    print(f"ValueError: no adapter_config.json in {adapter!r}", file=sys.stderr, flush=True)
    sys.exit(1)
served = [{"id": model, "object": "model", "root": model, "parent": None}, {"id": name, "object": "model", "root": adapter, "parent": model}]
record = os.environ.get("FAKE_VLLM_RECORD")


class Handler(BaseHTTPRequestHandler):
    def send(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/v1/models":
            return self.send(200, {"object": "list", "data": served})
        self.send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"{}")
        if self.path != "/v1/chat/completions":
            return self.send(404, {"error": {"message": f"no route {self.path}"}})
        if record:
            with open(record, "a") as handle:
                handle.write(json.dumps(body) + "\n")
        if body.get("model") not in [m["id"] for m in served]:
            return self.send(404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}})
        content = f"Bollards of {body['model']}: Poland, I think."
        self.send(200, {
            "id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "reasoning_content": None}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29},
        })

    def log_message(self, fmt, *values):
        print("INFO " + fmt % values, flush=True)


server = ThreadingHTTPServer((str(options.get("--host", "127.0.0.1")), int(options.get("--port", 8000))), Handler)
print(f"INFO: Uvicorn running on http://{server.server_address[0]}:{server.server_address[1]}", flush=True)
server.serve_forever()
