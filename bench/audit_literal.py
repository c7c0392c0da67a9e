"""The leak audit's anchor (docs/audit.md, "Acceptance corpus and speed"): a naive literal scan of a
prompt file, as someone would write it in an afternoon with the standard library only.

    python3 bench/audit_literal.py PROMPTS.jsonl TASKS.jsonl

Per line: json.loads, then each text of the prompt's messages (strings, text parts, image URLs other
than inline data) searched by substring for the task's identity keys and its country's name. Prints
one line: `lines=N hits=M`.
"""

import json
import sys


def needles(task):
    """The task's identity keys and its country's English name."""
    keys = [task.get("task_id"), task.get("sequence_id"), task.get("country")]
    for frame in task.get("frames", []):
        keys.append(str(frame.get("image_id")))
    attribution = task.get("attribution") or {}
    keys += [attribution.get("creator_username"), attribution.get("creator_id")]
    keys += list(((task.get("meta") or {}).get("sha256") or {}).values())
    return [k for k in keys if isinstance(k, str) and len(k) >= 4]


def texts(messages):
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            yield content
        elif isinstance(content, list):
            for part in content:
                if "text" in part:
                    yield part["text"]
                elif part.get("type") == "image_url":
                    url = part["image_url"]["url"] if isinstance(part["image_url"], dict) else part["image_url"]
                    if not url.startswith("data:"):
                        yield url


def main(prompts_file, tasks_file):
    with open(tasks_file, encoding="utf-8") as handle:
        tasks = [json.loads(line) for line in handle if line.strip()]
    by_id = {t["task_id"]: needles(t) for t in tasks}
    lines = hits = 0
    with open(prompts_file, encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            prompt = json.loads(line)
            lines += 1
            keys = by_id.get(prompt.get("task_id"), [])
            for text in texts(prompt.get("messages", [])):
                hits += sum(1 for key in keys if key in text)
    print(f"lines={lines} hits={hits}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
