#!/usr/bin/env python3
"""Holds connections to HOST:PORT that never finish a request, until killed:
IDLE ones that send nothing and LORIS ones that send half a request head one
byte every half second. A connection the server closes is opened again at
once, so the pressure stays. Prints "ready" when all are open.
They come from 127.0.0.2 when HOST is 127.0.0.1 (all of 127/8 is loopback):
the exporter bounds connections per address, so from the scraper's own
address they would make it share their bound, and a scrape accepted in
their reconnect storm could be closed before its request came in; from
another address they are what an exporter meets from misbehaving clients.
    idle_clients.py HOST:PORT IDLE LORIS"""
import select
import socket
import sys
import time

target, idle, loris = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
host, port = target.rsplit(":", 1)
HEAD = b"GET /metrics HTTP/1.1\r\nHost: " + host.encode() + b"\r\nUser-Agent: slow"


SOURCE = ("127.0.0.2", 0) if host == "127.0.0.1" else None


def connect():
    try:
        s = socket.create_connection((host.strip("[]"), int(port)), source_address=SOURCE)
    except OSError:
        sys.exit(0)  # the server is gone: nothing left to hold
    s.setblocking(False)
    return s


conns = [[connect(), False, 0] for _ in range(idle)] + [[connect(), True, 0] for _ in range(loris)]
print("ready", flush=True)
while True:
    readable, _, _ = select.select([c[0] for c in conns], [], [], 0.5)
    for c in conns:
        if c[0] in readable:
            try:
                gone = not c[0].recv(65536)
            except OSError:
                gone = True
            if gone:
                c[0].close()
                c[0], c[2] = connect(), 0
        elif c[1] and c[2] < len(HEAD):
            try:
                c[0].send(HEAD[c[2]:c[2] + 1])
                c[2] += 1
            except OSError:
                pass
