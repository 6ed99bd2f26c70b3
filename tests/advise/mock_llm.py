"""A loopback OpenAI-compatible chat-completions server for advise's tests (127.0.0.1 only).
    mock_llm.py MODE PORTFILE LOGFILE
MODE: ok (an answer built from the prompt: one valid and one wrong recommendation), fenced (the
same in prose and a ```json fence), none (no change justified), malformed (not JSON), notchat
(a body that is not a chat completion), truncated (the body ends before its Content-Length),
429then (429, then ok), 500 (always), slow (answers after 120 s), echo (the answer quotes the
Authorization header). Every request is appended to LOGFILE as one JSON line."""
import http.server
import json
import re
import sys
import time

MODE, PORTFILE, LOGFILE = sys.argv[1], sys.argv[2], sys.argv[3]
count = 0


def answer(prompt, fenced=False):
    pats = re.findall(r"^  - \*\*([a-z_]+)\*\*", prompt, re.M)
    recs = []
    for i, p in enumerate(pats):
        recs.append({"priority": i + 1, "bottleneck_dimension": p, "level": "code",
                     "explanation": "the job shows %s" % p, "code_before": "write(fd, b, 4096);",
                     "code_after": "write(fd, b, 1048576);", "expected_speedup": "to be measured",
                     "kb_citation": "card:%s" % p, "confidence": "high", "api_change": "none"})
    recs.append({"priority": len(recs) + 1, "bottleneck_dimension": "made_up_pattern", "level": "code",
                 "explanation": "x", "code_before": "a", "code_after": "b", "expected_speedup": "7.25x",
                 "kb_citation": "kb_entry_999", "confidence": "low", "api_change": "none"})
    if pats:  # right in every way but a hint no evidence names
        recs.append({"priority": len(recs) + 1, "bottleneck_dimension": pats[0], "level": "setting",
                     "explanation": "y", "code_before": "(no hint)", "code_after": "romio_no_such_hint=enable",
                     "expected_speedup": "to be measured", "kb_citation": "card:%s" % pats[0],
                     "confidence": "low", "api_change": "none"})
    body = json.dumps({"diagnosis": "the detected patterns: " + ", ".join(pats), "recommendations": recs})
    if fenced:
        return "Here is the answer:\n\n```json\n" + body + "\n```\nI hope it helps."
    return body


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def reply(self, code, obj=None, raw=None, length=None):
        data = raw if raw is not None else json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(length if length is not None else len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        global count
        count += 1
        n = int(self.headers.get("Content-Length", "0"))
        req = json.loads(self.rfile.read(n) or b"{}")
        auth = self.headers.get("Authorization", "")
        with open(LOGFILE, "a") as f:
            f.write(json.dumps({"path": self.path, "auth": auth, "model": req.get("model"),
                                "temperature": req.get("temperature"),
                                "roles": [m.get("role") for m in req.get("messages", [])]}) + "\n")
        user = next((m["content"] for m in req.get("messages", []) if m.get("role") == "user"), "")

        def chat(text):
            return {"id": "x", "object": "chat.completion", "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}

        if MODE == "ok" or (MODE == "429then" and count > 1):
            self.reply(200, chat(answer(user)))
        elif MODE == "429then":
            self.reply(429, {"error": {"message": "rate limited"}})
        elif MODE == "fenced":
            self.reply(200, chat(answer(user, True)))
        elif MODE == "none":
            self.reply(200, chat(json.dumps({"diagnosis": "no change is justified", "recommendations": []})))
        elif MODE == "malformed":
            self.reply(200, chat("I think you should buy faster disks."))
        elif MODE == "notchat":
            self.reply(200, raw=b"<html>not a chat completion</html>")
        elif MODE == "truncated":
            self.reply(200, raw=json.dumps(chat(answer(user))).encode()[:40], length=4000)
        elif MODE == "500":
            self.reply(500, {"error": {"message": "internal error"}})
        elif MODE == "slow":
            time.sleep(120)
            self.reply(200, chat(answer(user)))
        elif MODE == "echo":
            self.reply(200, chat(json.dumps({"diagnosis": "your header was " + auth, "recommendations": []})))
        else:
            self.reply(400, {"error": {"message": "unknown mode"}})


srv = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(PORTFILE, "w") as f:
    f.write(str(srv.server_address[1]))
srv.serve_forever()
