# What slicing an analysis costs: each position analysed once, and in 1 s slices
# (budget_ms) until exact, on a fresh JSON-lines service each; prints nodes, slices, wall.
# Usage: python3 cli/benches/slices.py target/release/fourfold 4453 4455
import subprocess, json, sys, time
bin=sys.argv[1]
def run(pos, budget):
    p=subprocess.Popen([bin,"serve","--tt-mb","64","-t","1"],stdin=subprocess.PIPE,stdout=subprocess.PIPE,text=True)
    nodes=0; slices=0; t=time.time()
    while True:
        req={"op":"analyze","position":pos}
        if budget: req["budget_ms"]=budget
        p.stdin.write(json.dumps(req)+"\n"); p.stdin.flush()
        r=json.loads(p.stdout.readline()); slices+=1
        if "error" in r: nodes+=r["error"]["nodes"]; continue
        nodes+=r["nodes"]; break
    wall=time.time()-t
    p.stdin.close(); p.wait()
    return nodes, slices, wall, r["scores"]
for pos in sys.argv[2:]:
    a=run(pos,None); b=run(pos,1000)
    print(pos, "single: %d nodes %.1f s | 1 s slices: %d nodes in %d slices %.1f s | nodes ratio %.3f same scores %s"%(a[0],a[2],b[0],b[1],b[2],b[0]/a[0],a[3]==b[3]))
