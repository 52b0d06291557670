"""Half-open HTTP connections against `fourfold serve --http` (defaults), loopback only.

    python3 cli/benches/half_open.py N target/release/fourfold

Opens N connections that each send half a request head and stop, prints the server's
threads and RSS (/proc/PID/status), answers a new GET / during the flood, then reads every
held connection to its end (answered 408 or 503 and closed) and asks again. Stops by itself
(the server's head timeout bounds it). BENCHMARKS.md, "Half-open connections".
"""
import socket, subprocess, sys, time, re
N = int(sys.argv[1]); exe = sys.argv[2]
p = subprocess.Popen([exe, "serve", "--http", "127.0.0.1:0", "--tt-mb", "16"], stderr=subprocess.PIPE, text=True)
line = p.stderr.readline(); addr = re.search(r"http://([^/]+)/", line).group(1); host, port = addr.split(":")
def threads(): return int(re.search(r"Threads:\s+(\d+)", open(f"/proc/{p.pid}/status").read()).group(1))
def rss(): return int(re.search(r"VmRSS:\s+(\d+)", open(f"/proc/{p.pid}/status").read()).group(1))
def get(path):
    t = time.time(); s = socket.create_connection((host, int(port)), timeout=30)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()); d = b""
    while True:
        c = s.recv(65536)
        if not c: break
        d += c
    return d.split(b"\r\n")[0].decode(), round((time.time() - t) * 1000, 1)
print("before:", threads(), "threads", rss(), "KiB RSS")
t0 = time.time(); held = []
for i in range(N):
    s = socket.create_connection((host, int(port)), timeout=30); s.sendall(b"GET /api/solve?pos=4 HTTP/1.1\r\nHost: x\r\n"); held.append(s)
print(f"{N} half-open in {time.time()-t0:.1f} s:", threads(), "threads", rss(), "KiB RSS")
print("GET / during:", get("/"))
# When are they closed?
closed = 0; t1 = time.time(); 
for s in held:
    s.settimeout(30)
    try:
        while s.recv(65536): pass
    except Exception as e: pass
    closed += 1
print(f"all {closed} closed {time.time()-t0:.1f} s after the first connect;", threads(), "threads")
print("GET / after:", get("/"), "GET /api/solve?pos=44 after:", get("/api/solve?pos=44"))
p.kill()
