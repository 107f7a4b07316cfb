#!/usr/bin/env python3
import argparse
import json
import pathlib

STORE = pathlib.Path("tasks.json")


def load():
    return json.loads(STORE.read_text()) if STORE.exists() else []


def save(tasks):
    STORE.write_text(json.dumps(tasks, indent=2))


def cmd_add(args):
    tasks = load()
    tasks.append({"title": " ".join(args.title), "priority": args.priority, "done": False})
    save(tasks)


def cmd_list(args):
    tasks = load()
    for i, t in enumerate(tasks, 1):
        if args.all or not t["done"]:
            print(f"{i:3} {'✓' if t['done'] else ' '} [{t['priority']}] {t['title']}")


def cmd_done(args):
    tasks = load()
    tasks[args.number - 1]["done"] = True
    save(tasks)


parser = argparse.ArgumentParser(prog="tasks")
sub = parser.add_subparsers(dest="command", required=True)
p = sub.add_parser("add")
p.add_argument("title", nargs="+")
p.add_argument("-p", "--priority", choices=["low", "mid", "high"], default="mid")
p.set_defaults(func=cmd_add)
p = sub.add_parser("list")
p.add_argument("-a", "--all", action="store_true")
p.set_defaults(func=cmd_list)
p = sub.add_parser("done")
p.add_argument("number", type=int)
p.set_defaults(func=cmd_done)

args = parser.parse_args()
args.func(args)
