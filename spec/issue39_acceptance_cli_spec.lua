-- Acceptance tests for issue 39 ("Gaps in what the last round delivered: a
-- crash on import, Horovod read-back, the CLI's first-error-only output,
-- `explain --target`"), written from the README, docs/*.md, the CLI's --help,
-- ../shared/FACTS.md and ../shared/SPEC.md only (black box: no source read).
--
-- Run from the checkout:
--   busted --lua=lua5.4 spec/issue39_acceptance_cli_spec.lua (KFJOB_CLI: another build)
--
-- Everything that could crash (the import paths with every opts.kind) runs in
-- a child process, so a SIGSEGV fails one test instead of killing the run.

-- Written by a tester who had not seen the code (the project's stranger's
-- check): kept as it was written, with the CLI and module paths of the
-- suite.  The CLI and its child processes are Lua 5.4.
local util = require "util"
if not util.cli_ok then
  describe("issue 39 acceptance", function() pending(util.CLI_ONLY) end)
  return
end
local KF = util.KFJOB
local BUILD = KF:match("^(.*)/[^/]+$") or "."
package.cpath = BUILD .. "/?.so;" .. package.cpath
local kfjob = require "kfjob"

local LUA = "lua5.4"

------------------------------------------------------------------------
-- helpers
------------------------------------------------------------------------

-- a shell word; a file's contents (nil when it cannot be opened); text written to a path, the
-- path returned (spec/util.lua)
local q, readfile, writefile = util.quote, util.slurp, util.write

local tmpdirs = {}
local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  assert(os.execute("mkdir -p " .. q(d)))
  tmpdirs[#tmpdirs + 1] = d
  return d
end

-- runs a shell command; returns stdout, stderr and the exit status
-- (128 + N when a signal N ended it)
local run = util.run_sh

local function kf(args) return run(q(KF) .. " " .. args) end

-- a Lua child with the module of the build under test
local CHILD_PRELUDE = string.format(
  "package.cpath = %q .. package.cpath\npackage.path = %q .. package.path\n",
  BUILD .. "/?.so;", "./lua/?.lua;./lua/?/init.lua;")
local function lua_child(code, ...)
  local f = os.tmpname()
  writefile(f, CHILD_PRELUDE .. code)
  local args = {}
  for i = 1, select("#", ...) do args[#args + 1] = q((select(i, ...))) end
  local out, err, rc = run(LUA .. " " .. q(f) .. " " .. table.concat(args, " "))
  os.remove(f)
  return out, err, rc
end

local function lines(s)
  local t = {}
  for l in (s .. "\n"):gmatch("(.-)\n") do t[#t + 1] = l end
  if t[#t] == "" then t[#t] = nil end
  return t
end

local function have(cmd) local _, _, rc = run("command -v " .. cmd .. " >/dev/null") return rc == 0 end

-- A PyTorchJob with workers only, no Master and no elasticPolicy: the
-- training-operator's webhook accepts it (FACTS §11.1.1).
local WORKER_ONLY = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: wo
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            args: [python, train.py]
]]

teardown(function()
  for _, d in ipairs(tmpdirs) do os.execute("rm -rf " .. q(d)) end
end)

------------------------------------------------------------------------
-- 1. The crash on import, and its siblings
------------------------------------------------------------------------

-- The child that fuzzes every Lua import path with every opts.kind. It also
-- writes the base manifests (every kind, every target that runs it) and
-- their single-key deletions (depth <= 4) for the CLI and C fuzzers.
local FUZZ_CHILD = [==[
local kfjob = require "kfjob"
local dir = arg[1]
local bases = {}
local function add(label, job, target)
  local y = job:manifest{ name = "fz", target = target, image = "img:1", args = { "python", "train.py" }, format = "yaml" }
  bases[#bases + 1] = { label = label .. "@" .. target, yaml = y }
end
local J = {
  tf = kfjob.TFJob{ worker = { replicas = 2 }, ps = { replicas = 1 }, chief = { replicas = 1 }, run_policy = { backoff_limit = 2 } },
  pt = kfjob.PyTorchJob{ worker = { replicas = 2, limits = { gpu = 1 } }, master = { limits = { gpu = 1 } }, shared_memory = true },
  el = kfjob.Elastic{ nnodes = "2:4", worker = {} },
  el2 = kfjob.Elastic{ nnodes = 2, worker = {} },
  mpi = kfjob.MPIJob{ worker = { replicas = 2 }, launcher = {}, slots = 2 },
  hv = kfjob.HorovodJob{ worker = { replicas = 2 }, launcher = {}, slots = 2, verbose = true },
  hvc = kfjob.HorovodJob{ worker = { replicas = 2, command = { "/usr/sbin/sshd", "-De" } }, launcher = {} },
  jax = kfjob.JAXJob{ worker = { replicas = 2 } },
  xgb = kfjob.XGBoostJob{ worker = { replicas = 2 } },
  pd = kfjob.PaddleJob{ worker = { replicas = 2 } },
  sch = kfjob.PyTorchJob{ worker = { replicas = 3 }, scheduling = { queue = "q", gang = { min_available = 4, queue = "g" }, topology = { required = "rack" } } },
}
for _, t in ipairs{ "operator", "flyte", "flyte2" } do
  for _, k in ipairs{ "tf", "pt", "el", "mpi", "hv", "hvc" } do add(k, J[k], t) end
end
add("el2", J.el2, "flyte")
for _, k in ipairs{ "jax", "xgb", "pd", "sch" } do add(k, J[k], "operator") end
for _, k in ipairs{ "mpi", "hv", "hvc" } do add(k, J[k], "mpi-operator") end
add("sch", kfjob.MPIJob{ worker = { replicas = 3 }, scheduling = { queue = "q", gang = { min_available = 4 } } }, "mpi-operator")
for _, t in ipairs{ "trainer-2.2", "trainer-2.3" } do
  add("pt", kfjob.PyTorchJob{ worker = { replicas = 2 } }, t); add("el2", J.el2, t)
end
add("sch", kfjob.PyTorchJob{ worker = { replicas = 3 }, scheduling = { queue = "q", gang = { queue = "g" } } }, "trainer-2.3")
local wo = io.open(dir .. "/worker-only.yaml"):read("*a")
bases[#bases + 1] = { label = "worker-only", yaml = wo }

local function enc(v)
  local t = type(v)
  if t == "string" then return (string.format("%q", v):gsub("\\\n", "\\n")) end
  if t == "number" then
    if math.type(v) == "integer" then return tostring(v) end
    return string.format("%.17g", v)
  end
  if t == "boolean" then return tostring(v) end
  if t ~= "table" then return "null" end
  if #v > 0 then local o = {} for i = 1, #v do o[i] = enc(v[i]) end return "[" .. table.concat(o, ",") .. "]" end
  local ks = {} for k in pairs(v) do ks[#ks + 1] = tostring(k) end table.sort(ks)
  local o = {} for _, k in ipairs(ks) do o[#o + 1] = enc(k) .. ":" .. enc(v[k]) end
  return "{" .. table.concat(o, ",") .. "}"
end
local function copy(v) if type(v) ~= "table" then return v end local c = {} for k, x in pairs(v) do c[k] = copy(x) end return c end
local function paths(v, pre, out)
  if type(v) ~= "table" then return out end
  for k, x in pairs(v) do
    local p = {} for i = 1, #pre do p[i] = pre[i] end
    p[#p + 1] = k; out[#out + 1] = p; paths(x, p, out)
  end
  return out
end
local function setp(t, p, val)
  local c = copy(t); local n = c
  for i = 1, #p - 1 do n = n[p[i]] end
  if val == "DEL" then
    if type(p[#p]) == "number" then table.remove(n, p[#p]) else n[p[#p]] = nil end
  else n[p[#p]] = val end
  return c
end

local kinds = { false }
for _, k in ipairs(kfjob.kinds) do kinds[#kinds + 1] = k end
local calls, raised, read = 0, 0, 0
local msgs = {}
local function note(what, err) raised = raised + 1; if #msgs < 10 then msgs[#msgs + 1] = what .. ": " .. tostring(err) end end
local function try(doc, kind, lossy, what)
  calls = calls + 1
  local ok, j, info = pcall(kfjob.from_manifest, doc, { kind = kind or nil, lossy = lossy })
  if not ok then return note(what .. " kind=" .. tostring(kind), j) end
  if j then
    read = read + 1
    pcall(j.check, j, { target = info.target })
    pcall(j.manifest, j, { name = "fz", target = info.target, image = "img:1", args = info.container.args,
                           command = info.container.command, format = "yaml" })
    pcall(kfjob.to_lua, { fz = j })
  end
end
local nmut = 0
for bi, b in ipairs(bases) do
  io.open(string.format("%s/base/%02d.yaml", dir, bi), "w"):write(b.yaml):close()
  local T = assert(kfjob.read_yaml(b.yaml))
  for _, k in ipairs(kinds) do
    for _, lossy in ipairs{ false, true } do
      try(b.yaml, k, lossy, b.label .. " yaml"); try(enc(T), k, lossy, b.label .. " json"); try(copy(T), k, lossy, b.label .. " table")
      calls = calls + 1
      local ok, r = pcall(kfjob.from_manifests, b.yaml .. "\n---\n" .. b.yaml, { kind = k or nil, lossy = lossy })
      if not ok then note(b.label .. " from_manifests kind=" .. tostring(k), r) end
    end
  end
  for _, p in ipairs(paths(T, {}, {})) do
    for _, val in ipairs{ "DEL", "x", {}, 0, -1, true } do
      local M = setp(T, p, val)
      local s = enc(M)
      local what = b.label .. " " .. table.concat(p, ".") .. "=" .. tostring(val)
      for _, k in ipairs(kinds) do try(s, k, false, what); try(s, k, true, what); try(M, k, false, what .. " (table)") end
      if val == "DEL" and #p <= 4 then
        nmut = nmut + 1
        io.open(string.format("%s/mut/%02d-%04d.json", dir, bi, nmut), "w"):write(s):close()
      end
    end
  end
end
print(string.format("DONE bases=%d calls=%d read=%d raised=%d", #bases, calls, read, raised))
for _, m in ipairs(msgs) do print("RAISED " .. m) end
]==]

-- the Flyte decoders with every opts.kind
local DECODE_CHILD = [==[
local kfjob = require "kfjob"
local jobs = {
  kfjob.TFJob{ worker = { replicas = 2 } }, kfjob.PyTorchJob{ worker = { replicas = 2 } },
  kfjob.PyTorchJob{ master = {} }, kfjob.Elastic{ nnodes = "2:4" }, kfjob.Elastic{ nnodes = 1 },
  kfjob.MPIJob{ worker = { replicas = 2 } }, kfjob.HorovodJob{ worker = { replicas = 2 }, slots = 2 },
}
local kinds = { false, "Bogus" } for _, k in ipairs(kfjob.kinds) do kinds[#kinds + 1] = k end
local n = 0
for _, j in ipairs(jobs) do
  local id = { project = "p", domain = "d", name = "n", version = "v" }
  local c = { image = "i", args = { "python", "x.py" } }
  local tt = j:task_template{ id = id, container = c }
  local ttj = j:task_template{ id = id, container = c, format = "json" }
  local ts = j:task_spec{ id = id, container = c }
  local ok0, bytes = pcall(j.encode, j)
  for _, k in ipairs(kinds) do
    local o = { kind = k or nil }
    for _, f in ipairs{
      function() return kfjob.decode_task_template(tt, o) end,
      function() return kfjob.decode_task_template(ttj, o) end,
      function() return kfjob.decode_task_spec(ts, o) end,
      function() if ok0 then return kfjob.decode(j.task_type, bytes, o) end end,
      function() if ok0 then return kfjob.from_json(j.task_type, j:to_json(), o) end end,
      function() return kfjob.decode_task_template(tt:sub(1, #tt // 2), o) end,
    } do
      n = n + 1
      local ok, a = pcall(f)
      if ok and a then pcall(a.manifest, a, { name = "fz", image = "i" }); pcall(a.check, a) end
    end
  end
end
print("DONE " .. n)
]==]

-- a C host: "one FILE KIND" prints the status of one import; "fuzz FILES..."
-- imports each file with every kind, lossy, stream, target and format
local HOST_C = [==[
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <kfjob.h>
static int cb(void *ud, const kfjob_job *job, const kfjob_import_info *info) {
  (void)job; (void)info; ++*(long *)ud; return 0;
}
static char *slurp(const char *p, size_t *n) {
  FILE *f = fopen(p, "rb"); long l; char *b;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END); l = ftell(f); fseek(f, 0, SEEK_SET);
  b = malloc((size_t)l + 1); *n = fread(b, 1, (size_t)l, f); b[*n] = 0; fclose(f);
  return b;
}
int main(int argc, char **argv) {
  static const char *kinds[] = { NULL, "TFJob", "PyTorchJob", "Elastic", "MPIJob", "HorovodJob",
                                 "JAXJob", "XGBoostJob", "PaddleJob", "Bogus" };
  static const char *targets[] = { NULL, "operator", "flyte", "flyte2", "mpi-operator", "trainer-2.3" };
  static const kfjob_format fmts[] = { KFJOB_FORMAT_MANIFEST, KFJOB_FORMAT_JSON, KFJOB_FORMAT_NONE,
                                       KFJOB_FORMAT_ENVIRONMENT, KFJOB_FORMAT_TEMPLATE };
  kfjob_host *h; long calls = 0, jobs = 0; int a, full = 1;
  if (argc < 3 || kfjob_host_new(NULL, &h) != KFJOB_OK) return 3;
  if (strcmp(argv[1], "one") == 0) {
    size_t n; char *text = slurp(argv[2], &n);
    kfjob_import_options io; kfjob_run_options ro; kfjob_status s;
    memset(&io, 0, sizeof io); io.kind = argv[3];
    kfjob_run_options_init(&ro); ro.format = KFJOB_FORMAT_MANIFEST;
    s = kfjob_host_import_manifests(h, text, n, &io, &ro, cb, &jobs);
    printf("%s\t%ld\t%s\n", kfjob_status_string(s), jobs, kfjob_host_message(h));
    printf("%d\n", s == KFJOB_EDATA);
    kfjob_host_free(h); free(text);
    return 0;
  }
  for (a = 2; a < argc; a++) {
    size_t n, k, t, f; int lossy, stream, kg; char *text;
    if (strcmp(argv[a], "--quick") == 0) { full = 0; continue; }
    text = slurp(argv[a], &n); if (!text) return 4;
    for (k = 0; k < sizeof kinds / sizeof *kinds; k++)
      for (lossy = 0; lossy < 2; lossy++)
        for (stream = 0; stream < 2; stream++)
          for (t = 0; t < (full ? sizeof targets / sizeof *targets : 2); t++)
            for (f = 0; f < (full ? sizeof fmts / sizeof *fmts : 1); f++)
              for (kg = 0; kg < (full ? 2 : 1); kg++) {
                kfjob_import_options io; kfjob_run_options ro;
                memset(&io, 0, sizeof io);
                io.kind = kinds[k]; io.lossy = lossy; io.stream = stream;
                kfjob_run_options_init(&ro);
                ro.format = fmts[f]; ro.target = targets[t]; ro.image = "img:1"; ro.keep_going = kg;
                (void)kfjob_host_import_manifests(h, text, n, &io, &ro, cb, &jobs);
                calls++;
              }
    free(text);
  }
  kfjob_host_free(h);
  printf("DONE calls=%ld jobs=%ld\n", calls, jobs);
  return 0;
}
]==]

describe("issue 39: import never crashes, whatever opts.kind", function()
  local dir, wo
  setup(function()
    dir = tmpdir()
    assert(os.execute("mkdir -p " .. q(dir .. "/base") .. " " .. q(dir .. "/mut")))
    wo = writefile(dir .. "/worker-only.yaml", WORKER_ONLY)
  end)

  it("kfjob convert of a worker-only PyTorchJob with --kind Elastic exits 1 naming spec.elasticPolicy", function()
    -- IMPORT.md: exit 1 for input kfjob cannot read; SPEC §14: a clear error, no crash
    local out, err, rc = kf("convert " .. q(wo) .. " --kind Elastic")
    assert.are.equal(1, rc, "exit status (139 = SIGSEGV); stderr: " .. err)
    assert.are.equal("", out)
    assert.truthy(err:find("elasticPolicy", 1, true), err)
    for _, extra in ipairs{ "--lossy", "--to operator", "--to trainer-2.3", "-f lua", "-f config", "--to flyte -f json" } do
      local _, err2, rc2 = kf("convert " .. q(wo) .. " --kind Elastic " .. extra)
      assert.are.equal(1, rc2, extra .. ": " .. err2)
    end
  end)

  it("kfjob.from_manifest(worker-only, {kind = 'Elastic'}) returns nil and a message (text, table, stream)", function()
    local out, err, rc = lua_child([[
      local kfjob = require "kfjob"
      local text = io.open(arg[1]):read("*a")
      local function show(...) local t = table.pack(...) print(t.n, tostring(t[1]), tostring(t[2])) end
      show(kfjob.from_manifest(text, { kind = "Elastic" }))
      show(kfjob.from_manifest(kfjob.read_yaml(text), { kind = "Elastic" }))
      show(kfjob.from_manifest(text, { kind = "Elastic", lossy = true }))
      local ok, r, m = pcall(kfjob.from_manifests, text, { kind = "Elastic" })
      print("stream", ok, tostring(r), tostring(m))
      print("END")
    ]], wo)
    assert.are.equal(0, rc, "child died (139 = SIGSEGV): " .. err)
    local l = lines(out)
    assert.are.equal("END", l[#l], out)
    for i = 1, 3 do
      local n, j, msg = l[i]:match("^(%d+)\t(.-)\t(.*)$")
      assert.are.equal("nil", j, l[i])
      assert.truthy(tonumber(n) >= 2 and msg:find("elasticPolicy", 1, true), l[i])
    end
    -- from_manifests: nil, msg (a bad document of a kind it reads fails the stream)
    assert.truthy(l[4]:match("^stream\ttrue\tnil\t.*elasticPolicy"), l[4])
  end)

  it("every Lua import path (from_manifest on YAML, JSON and tables; from_manifests) with every opts.kind, on every kind's manifest for every target and on mutations of them, never crashes and never raises", function()
    local out, err, rc = lua_child(FUZZ_CHILD, dir)
    assert.are.equal(0, rc, "fuzz child died (139 = SIGSEGV): " .. err:sub(1, 2000))
    assert.truthy(out:find("DONE bases=", 1, true), out:sub(1, 2000))
    local raised = tonumber(out:match("raised=(%d+)"))
    assert.are.equal(0, raised, "from_manifest/from_manifests raised for data (SPEC §14: nil, msg):\n" .. out:sub(1, 3000))
  end)

  it("the Flyte decoders (decode, from_json, decode_task_template, decode_task_spec) with every opts.kind never crash", function()
    local out, err, rc = lua_child(DECODE_CHILD)
    assert.are.equal(0, rc, "decoder child died: " .. err:sub(1, 2000))
    assert.truthy(out:match("DONE %d+"), out)
  end)

  it("kfjob convert --kind K (every kind; --lossy, --to, -f lua) on every base manifest and its single-key deletions exits 0, 1 or 2, never by a signal", function()
    -- the fuzz child above wrote the files; run it again if this test runs alone
    if not readfile(dir .. "/base/01.yaml") then lua_child(FUZZ_CHILD, dir) end
    local script = dir .. "/cli_fuzz.sh"
    writefile(script, table.concat({
      "K=" .. q(KF),
      "n=0",
      "for f in " .. q(dir) .. "/base/*.yaml; do",
      "  for k in TFJob PyTorchJob Elastic MPIJob HorovodJob JAXJob XGBoostJob PaddleJob; do",
      "    for extra in '' --lossy '--to operator' '--to mpi-operator' '--to trainer-2.3' '--to flyte -f lua' '-f config'; do",
      "      \"$K\" convert \"$f\" --kind $k $extra >/dev/null 2>&1; rc=$?; n=$((n+1))",
      "      [ $rc -gt 2 ] && echo \"CRASH rc=$rc: kfjob convert $f --kind $k $extra\"",
      "    done",
      "  done",
      "done",
      "for f in " .. q(dir) .. "/mut/*.json; do",
      "  for k in '' TFJob PyTorchJob Elastic MPIJob HorovodJob JAXJob XGBoostJob PaddleJob; do",
      "    if [ -n \"$k\" ]; then \"$K\" convert \"$f\" --kind $k >/dev/null 2>&1; else \"$K\" convert \"$f\" >/dev/null 2>&1; fi",
      "    rc=$?; n=$((n+1))",
      "    [ $rc -gt 2 ] && echo \"CRASH rc=$rc: kfjob convert $f --kind $k\"",
      "  done",
      "done",
      "echo \"DONE $n\"",
    }, "\n") .. "\n")
    local out = run("sh " .. q(script))
    assert.truthy(out:match("DONE %d+"), out:sub(1, 2000))
    assert.falsy(out:find("CRASH", 1, true), out:sub(1, 3000))
  end)

  describe("the C host API (kfjob_host_import_manifests)", function()
    local exe
    setup(function()
      if not have("cc") then return end
      local src = writefile(dir .. "/hostfz.c", HOST_C)
      exe = dir .. "/hostfz"
      local _, err, rc = run("cc -std=c99 -I./include " .. q(src) .. " -L" .. q(BUILD) .. " -lkfjob -Wl,-rpath," ..
                             q(BUILD) .. " -o " .. q(exe))
      if rc ~= 0 then exe = nil; print("cannot build the host program: " .. err) end
    end)

    it("kind = \"Elastic\" on a worker-only PyTorchJob returns KFJOB_EDATA", function()
      if not exe then return pending("no C compiler or libkfjob.so in " .. BUILD) end
      local out, err, rc = run(q(exe) .. " one " .. q(wo) .. " Elastic")
      assert.are.equal(0, rc, "host program died (139 = SIGSEGV): " .. err)
      local l = lines(out)
      assert.are.equal("1", l[2], "status should be KFJOB_EDATA (include/kfjob.h: input kfjob cannot read): " .. out)
      assert.truthy(l[1]:find("elasticPolicy", 1, true), out)
    end)

    it("every kind, lossy, stream, target and format on every base manifest (and kinds on every mutation) never crashes", function()
      if not exe then return pending("no C compiler or libkfjob.so in " .. BUILD) end
      if not readfile(dir .. "/base/01.yaml") then lua_child(FUZZ_CHILD, dir) end
      local out, err, rc = run(q(exe) .. " fuzz " .. q(dir) .. "/base/*.yaml")
      assert.are.equal(0, rc, "host fuzz died on the base manifests: " .. err:sub(1, 2000))
      assert.truthy(out:find("DONE", 1, true), out)
      out, err, rc = run(q(exe) .. " fuzz --quick " .. q(dir) .. "/mut/*.json")
      assert.are.equal(0, rc, "host fuzz died on the mutations: " .. err:sub(1, 2000))
      assert.truthy(out:find("DONE", 1, true), out)
    end)
  end)
end)

------------------------------------------------------------------------
-- 2. Horovod jobs read back
------------------------------------------------------------------------

-- FACTS §2.6: horovodrun -np N --log-level L --network-interface eth0
-- --min-np N --max-np N --slots-per-host S --host-discovery-script P
-- --elastic-timeout T [--verbose], N = worker.replicas x slots
local function horovod_line(workers, slots, o)
  o = o or {}
  local np = tostring(workers * slots)
  local t = { "horovodrun", "-np", np, "--log-level", o.log_level or "INFO", "--network-interface", "eth0",
              "--min-np", np, "--max-np", np, "--slots-per-host", tostring(slots),
              "--host-discovery-script", o.discovery or "/etc/mpi/discover_hosts.sh",
              "--elastic-timeout", tostring(o.elastic_timeout or 1200) }
  if o.verbose then t[#t + 1] = "--verbose" end
  return t
end

local function append(a, b) local t = {} for _, v in ipairs(a) do t[#t + 1] = v end for _, v in ipairs(b) do t[#t + 1] = v end return t end

describe("issue 39: Horovod jobs read back", function()
  local ARGS = { "python", "train.py" }
  local HV_TARGETS = { "operator", "mpi-operator", "flyte", "flyte2" }

  it("launcher_command is flytekit's horovodrun line (FACTS §2.6)", function()
    local h = kfjob.HorovodJob{ worker = { replicas = 2 }, slots = 2 }
    assert.are.same(append(horovod_line(2, 2), ARGS), h:launcher_command(ARGS))
    local v = kfjob.HorovodJob{ worker = { replicas = 3 }, slots = 2, verbose = true, log_level = "DEBUG", elastic_timeout = 600 }
    assert.are.same(append(horovod_line(3, 2, { verbose = true, log_level = "DEBUG", elastic_timeout = 600 }), ARGS),
                    v:launcher_command(ARGS))
  end)

  for _, target in ipairs(HV_TARGETS) do
    it("from_manifest(h:manifest{target = '" .. target .. "'}) of a HorovodJob is == h, no group has the horovodrun line as its command, and re-emits the same bytes", function()
      local h = kfjob.HorovodJob{ worker = { replicas = 2, image = "img:1" }, launcher = { image = "img:1" } }
      for _, args in ipairs{ ARGS, false } do
        for _, fmt in ipairs{ "yaml", "json", "table" } do
          local o = { name = "hv", target = target, format = fmt, args = args or nil }
          local m = h:manifest(o)
          local j, info = kfjob.from_manifest(m)
          assert.truthy(j, tostring(info))
          assert.are.equal("HorovodJob", j.kind)
          assert.is_nil(j.launcher.command, "launcher.command (" .. fmt .. ")")
          assert.is_nil(j.worker.command, "worker.command (" .. fmt .. ")")
          -- the whole job (a later issue): the task args read back as the job's container args
          local want = args and h:with{ ["container.args"] = args } or h
          assert.is_true(j == want, "read back differs: " .. tostring(j))
          if args then assert.are.same(ARGS, info.container.args) end
          if fmt == "yaml" then
            local again = j:manifest{ name = info.name, target = target, format = "yaml",
                                      args = info.container.args, command = info.container.command }
            assert.are.equal(m, again)
          end
        end
      end
    end)
  end

  for _, target in ipairs{ "flyte", "flyte2", "operator", "mpi-operator" } do
    it("on " .. target .. ", slots = 2 with verbose / log_level / elastic_timeout / discovery_script_path reads back with slots = 2 and every setting", function()
      local variants = {
        { slots = 2, verbose = true },
        { slots = 2, log_level = "DEBUG" },
        { slots = 2, elastic_timeout = 600 },
        { slots = 2, discovery_script_path = "/opt/discover.sh" },
        { slots = 2, verbose = true, log_level = "WARNING", elastic_timeout = 30 },
        { slots = 3, verbose = true },
      }
      for i, v in ipairs(variants) do
        local t = { worker = { replicas = 2, image = "img:1" }, launcher = { image = "img:1" } }
        for k, x in pairs(v) do t[k] = x end
        local h = kfjob.HorovodJob(t)
        local m = h:manifest{ name = "hv", target = target, format = "yaml", args = ARGS }
        local j, info = kfjob.from_manifest(m)
        assert.truthy(j, tostring(info))
        assert.are.equal(v.slots, j.slots, "variant " .. i)
        assert.are.equal(v.verbose or false, j.verbose, "variant " .. i)
        assert.are.equal(v.log_level or "INFO", j.log_level, "variant " .. i)
        assert.are.equal(v.elastic_timeout or 1200, j.elastic_timeout, "variant " .. i)
        assert.are.equal(v.discovery_script_path or "/etc/mpi/discover_hosts.sh", j.discovery_script_path, "variant " .. i)
        assert.is_nil(j.launcher.command, "variant " .. i)
        assert.is_true(j == h:with{ ["container.args"] = ARGS }, "variant " .. i .. ": " .. tostring(j))
      end
    end)
  end

  it("a HorovodJob with an sshd worker command reads back == on every target (the worker keeps its own command)", function()
    local h = kfjob.HorovodJob{ worker = { replicas = 2, image = "img:1", command = { "/usr/sbin/sshd", "-De" } },
                                launcher = { image = "img:1" } }
    for _, target in ipairs(HV_TARGETS) do
      local j, info = kfjob.from_manifest(h:manifest{ name = "hv", target = target, args = ARGS })
      assert.truthy(j, tostring(info))
      assert.are.same({ "/usr/sbin/sshd", "-De" }, j.worker.command)
      assert.is_nil(j.launcher.command)
      assert.is_true(j == h:with{ ["container.args"] = ARGS }, target)
    end
  end)

  it("read from flyte and emitted for mpi-operator, the line is not baked in: workers get no args, the launcher a fresh line for slots 2", function()
    local h = kfjob.HorovodJob{ worker = { replicas = 2, image = "img:1" }, launcher = { image = "img:1" }, slots = 2 }
    local j, info = kfjob.from_manifest(h:manifest{ name = "hv", target = "flyte", args = ARGS, format = "yaml" })
    assert.truthy(j, tostring(info))
    local m = j:manifest{ name = "hv", target = "mpi-operator", args = info.container.args }
    local specs = m.spec.mpiReplicaSpecs
    -- FACTS §8.3.2: slotsPerWorker = slots; a worker without a command gets no command/args (sshd runs)
    assert.are.equal(2, m.spec.slotsPerWorker)
    local wc = specs.Worker.template.spec.containers[1]
    assert.is_nil(wc.args)
    assert.is_nil(wc.command)
    assert.are.same(append(horovod_line(2, 2), ARGS), specs.Launcher.template.spec.containers[1].args)
  end)

  it("kfjob convert of a Horovod flyte manifest --to mpi-operator writes no worker args; -f lua writes no horovodrun command", function()
    local d = tmpdir()
    local h = kfjob.HorovodJob{ worker = { replicas = 2, image = "img:1" }, launcher = { image = "img:1" }, slots = 2,
                                verbose = true }
    local f = writefile(d .. "/hv.yaml", h:manifest{ name = "hv", target = "flyte", args = ARGS, format = "yaml" })
    local out, err, rc = kf("convert " .. q(f) .. " --to mpi-operator -f manifest-json")
    assert.are.equal(0, rc, err)
    local m = assert(kfjob.read_yaml(out))
    assert.are.equal(2, m.spec.slotsPerWorker)
    local wc = m.spec.mpiReplicaSpecs.Worker.template.spec.containers[1]
    assert.is_nil(wc.args)
    assert.is_nil(wc.command)
    assert.are.same(append(horovod_line(2, 2, { verbose = true }), ARGS),
                    m.spec.mpiReplicaSpecs.Launcher.template.spec.containers[1].args)
    local lua_out, err2, rc2 = kf("convert " .. q(f) .. " -f lua")
    assert.are.equal(0, rc2, err2)
    assert.falsy(lua_out:find("horovodrun", 1, true), lua_out)
    assert.falsy(lua_out:find("command", 1, true), lua_out)
    assert.truthy(lua_out:find("slots = 2", 1, true), lua_out)
    assert.truthy(lua_out:find("verbose = true", 1, true), lua_out)
  end)

  it("a horovodrun line that is not kfjob's (another -np) stays the launcher's command as written, and re-emits the same bytes", function()
    -- docs/IMPORT.md: any other horovodrun line is the group's own command, kept as written
    local h = kfjob.HorovodJob{ worker = { replicas = 2, image = "img:1" }, launcher = { image = "img:1" } }
    local m = h:manifest{ name = "hv", target = "operator", args = ARGS }
    local written = append(horovod_line(2, 1), ARGS)
    written[3] = "8"
    m.spec.mpiReplicaSpecs.Launcher.template.spec.containers[1].args = written
    local j, info = kfjob.from_manifest(m)
    assert.truthy(j, tostring(info))
    assert.are.same(written, j.launcher.command)
  end)
end)

------------------------------------------------------------------------
-- 3. The CLI prints every target error, each with its rule
------------------------------------------------------------------------

describe("issue 39: check and convert --to print every problem with its rule", function()
  -- trainer-2.3 refuses three things here (FACTS §8.5): R13 master 'always',
  -- R13 worker 'on_failure', R21 images that differ between master and workers
  local CONFIG = [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{
  master = { image = "img:1", restart_policy = "always" },
  worker = { replicas = 2, image = "img:2", restart_policy = "on_failure" },
}
]]
  local MANIFEST = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: three
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Always
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            args: [python, train.py]
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: img:2
            args: [python, train.py]
]]
  local d, cfg, man
  setup(function()
    d = tmpdir()
    cfg = writefile(d .. "/three.lua", CONFIG)
    man = writefile(d .. "/three.yaml", MANIFEST)
  end)

  local function check_three(text, where)
    local ls = {}
    for _, l in ipairs(lines(text)) do if l:find("(target trainer-2.3; rule R", 1, true) then ls[#ls + 1] = l end end
    assert.are.equal(3, #ls, where .. ": one line per problem expected, got:\n" .. text)
    local seen = {}
    -- a config's problems name its fields; a manifest's, its own paths
    local m, w = "master.restart_policy", "worker.restart_policy"
    if where:find("^convert") and not where:find("^convert config") then
      m, w = "spec.pytorchReplicaSpecs.Master.restartPolicy", "spec.pytorchReplicaSpecs.Worker.restartPolicy"
    end
    for _, l in ipairs(ls) do
      if l:find(m, 1, true) and l:find("rule R13", 1, true) then seen.m = true end
      if l:find(w, 1, true) and l:find("rule R13", 1, true) then seen.w = true end
      if l:find(".image", 1, true) and l:find("rule R21", 1, true) then seen.i = true end
    end
    assert.is_true(seen.m and seen.w and seen.i, where .. ":\n" .. text)
  end

  it("job:check{target = 'trainer-2.3'} finds the three problems (R13, R13, R21)", function()
    local job = kfjob.PyTorchJob{ master = { image = "img:1", restart_policy = "always" },
                                  worker = { replicas = 2, image = "img:2", restart_policy = "on_failure" } }
    local ok, problems = job:check{ target = "trainer-2.3" }
    assert.is_nil(ok)
    assert.are.equal(3, #problems)
    local rules = {}
    for _, p in ipairs(problems) do rules[#rules + 1] = p.path .. "=" .. p.rule end
    table.sort(rules)
    assert.truthy(rules[1]:match("^master.restart_policy=R13$"), table.concat(rules, " "))
    assert.truthy(rules[3]:match("^worker.restart_policy=R13$") or rules[2]:match("^worker.restart_policy=R13$"), table.concat(rules, " "))
  end)

  it("kfjob check --target trainer-2.3 prints all three, each with its rule and source, exit 1", function()
    local out, err, rc = kf("check " .. q(cfg) .. " --target trainer-2.3")
    assert.are.equal(1, rc)
    check_three(out .. err, "check")
    assert.truthy((out .. err):find("Summary: 1 job found, 0 valid, 1 invalid", 1, true), out .. err)
  end)

  it("kfjob check -f json gives the three as the job's problems (path, message, rule, source, target)", function()
    local out, _, rc = kf("check " .. q(cfg) .. " --target trainer-2.3 -f json")
    assert.are.equal(1, rc)
    local doc = assert(kfjob.read_yaml(out))
    local p = doc.jobs[1].problems
    assert.are.equal(3, #p)
    for _, x in ipairs(p) do
      assert.truthy(x.path and x.message and x.source, out)
      assert.truthy(x.rule == "R13" or x.rule == "R21", out)
      assert.are.equal("trainer-2.3", x.target)
    end
  end)

  it("kfjob convert MANIFEST --to trainer-2.3 prints all three (with --lossy too), writes nothing, exit 1", function()
    for _, extra in ipairs{ "", " --lossy" } do
      local out, err, rc = kf("convert " .. q(man) .. " --to trainer-2.3" .. extra)
      assert.are.equal(1, rc, err)
      assert.are.equal("", out)
      check_three(err, "convert" .. extra)
    end
  end)

  it("kfjob convert CONFIG.lua --to trainer-2.3 prints all three, exit 1", function()
    local out, err, rc = kf("convert " .. q(cfg) .. " --to trainer-2.3")
    assert.are.equal(1, rc, err)
    assert.are.equal("", out)
    check_three(err, "convert config")
  end)
end)

------------------------------------------------------------------------
-- 4. kfjob env prints the target's default gang
------------------------------------------------------------------------

describe("issue 39: kfjob env prints each job's gang, the target's default when the job sets none", function()
  -- SPEC §13: min_available, or the target's default: sum of replicas on
  -- operator, workers + 1 on mpi-operator, every pod on Trainer (FACTS §9.1);
  -- docs/SCHEDULING.md: "# NAME: gang 4" / "gang 4 (default)"
  local d
  setup(function()
    d = tmpdir()
    writefile(d .. "/mpi.lua", [[
local kfjob = require "kfjob"
return kfjob.MPIJob{ worker = { replicas = 3, image = "img:1" }, launcher = { image = "img:1" } }
]])
    writefile(d .. "/mpi5.lua", [[
local kfjob = require "kfjob"
return kfjob.MPIJob{ worker = { replicas = 5, image = "img:1" }, launcher = { image = "img:1" }, slots = 2,
                     scheduling = { queue = "team-a" } }
]])
    writefile(d .. "/mpig.lua", [[
local kfjob = require "kfjob"
return kfjob.MPIJob{ worker = { replicas = 3, image = "img:1" }, launcher = { image = "img:1" },
                     scheduling = { gang = { min_available = 2 } } }
]])
    writefile(d .. "/multi.lua", [[
local kfjob = require "kfjob"
return {
  tf = kfjob.TFJob{ worker = { replicas = 3, image = "i" }, ps = { replicas = 2, image = "i" }, chief = { replicas = 1, image = "i" } },
  el = kfjob.Elastic{ nnodes = "2:4", worker = { image = "i" } },
  q = kfjob.PyTorchJob{ master = { image = "i" }, worker = { replicas = 2, image = "i" }, scheduling = { queue = "team-a" } },
  g = kfjob.PyTorchJob{ master = { image = "i" }, worker = { replicas = 2, image = "i" }, scheduling = { gang = { queue = "training" } } },
}
]])
    writefile(d .. "/pt.lua", [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{ master = { image = "img:1" }, worker = { replicas = 3, image = "img:1" } }
]])
  end)

  it("an MPIJob of 3 workers on mpi-operator: '# job: gang 4 (default)' (workers + 1)", function()
    local out, err, rc = kf("env " .. q(d .. "/mpi.lua") .. " --target mpi-operator --name job")
    assert.are.equal(0, rc, err)
    assert.are.equal("# job: gang 4 (default)", lines(out)[1])
  end)

  it("an MPIJob of 5 workers with a queue but no gang on mpi-operator: gang 6 (default)", function()
    local out, err, rc = kf("env " .. q(d .. "/mpi5.lua") .. " --target mpi-operator --name job")
    assert.are.equal(0, rc, err)
    assert.are.equal("# job: gang 6 (default)", lines(out)[1])
  end)

  it("min_available set: '# job: gang 2' without (default)", function()
    local out, err, rc = kf("env " .. q(d .. "/mpig.lua") .. " --target mpi-operator --name job")
    assert.are.equal(0, rc, err)
    assert.are.equal("# job: gang 2", lines(out)[1])
  end)

  it("operator: the sum of replicas for every job of a config (TFJob 6, Elastic 2:4 -> 4, PyTorchJobs 3)", function()
    local out, err, rc = kf("env " .. q(d .. "/multi.lua") .. " --target operator")
    assert.are.equal(0, rc, err)
    local g = {}
    for _, l in ipairs(lines(out)) do
      local n, s = l:match("^# (%S+): gang (.*)$")
      if n then g[n] = s end
    end
    assert.are.same({ tf = "6 (default)", el = "4 (default)", q = "3 (default)", g = "3 (default)" }, g)
  end)

  it("trainer-2.3: every node (master + 3 workers = 4); operator the same 4", function()
    for _, t in ipairs{ "trainer-2.3", "operator" } do
      local out, err, rc = kf("env " .. q(d .. "/pt.lua") .. " --target " .. t .. " --name job")
      assert.are.equal(0, rc, err)
      assert.are.equal("# job: gang 4 (default)", lines(out)[1], t)
    end
  end)
end)

------------------------------------------------------------------------
-- 5. kfjob explain --target
------------------------------------------------------------------------

describe("issue 39: kfjob explain --target shows each target's values, manifest path and default", function()
  local function explain(args)
    local out, err, rc = kf("explain " .. args)
    assert.are.equal(0, rc, "explain " .. args .. ": " .. err)
    return out
  end
  local function values_of(out)
    local v = out:match("\nVALUES:%s+([^\n]*)")
    assert.truthy(v, out)
    v = v:gsub("%s*%(.*$", "")
    local set = {}
    for w in v:gmatch("[^,%s]+") do set[#set + 1] = w end
    table.sort(set)
    return set
  end
  local function block(out, target)
    local b = out:match("\nON TARGET " .. target:gsub("%-", "%%-") .. " [^\n]*\n(.-)\n\n")
    assert.truthy(b, "no ON TARGET " .. target .. " block:\n" .. out)
    return b
  end

  it("restart_policy: Trainer takes only never, operator all three, mpi-operator never and on_failure (FACTS R13)", function()
    assert.are.same({ "never" }, values_of(explain("PyTorchJob.worker.restart_policy --target trainer-2.3")))
    assert.are.same({ "never" }, values_of(explain("PyTorchJob.worker.restart_policy --target trainer-2.2")))
    -- (and ExitCode since SPEC §17: the operator's common_types.go RestartPolicyExitCode)
    assert.are.same({ "always", "exit_code", "never", "on_failure" }, values_of(explain("PyTorchJob.worker.restart_policy --target operator")))
    assert.are.same({ "never", "on_failure" }, values_of(explain("MPIJob.launcher.restart_policy --target mpi-operator")))
    local t = explain("PyTorchJob.worker.restart_policy --target trainer-2.3")
    assert.truthy(block(t, "trainer-2.3"):find("R13", 1, true), t)
    assert.falsy(t:find("OnFailure", 1, true), "Trainer's explain still offers OnFailure:\n" .. t)
    assert.falsy(t:find("\nON TARGET operator", 1, true), t)
  end)

  it("MPIJob.slots --target mpi-operator names spec.slotsPerWorker (default 1) and no other target", function()
    local out = explain("MPIJob.slots --target mpi-operator")
    local b = block(out, "mpi-operator")
    assert.truthy(b:find("spec.slotsPerWorker", 1, true), out)
    assert.truthy(b:find("spec.slotsPerWorker: 1", 1, true), "the default slotsPerWorker 1 (FACTS §8.3.1):\n" .. out)
    for _, other in ipairs{ "operator", "flyte", "flyte2", "trainer" } do
      assert.falsy(out:find("ON TARGET " .. other .. " ", 1, true), out)
    end
    assert.falsy(out:find("kubeflow.org/v1)", 1, true), "a v1 line on mpi-operator:\n" .. out)
    assert.falsy(out:find("Worker.template.spec.containers[0].args", 1, true),
                 "mpi-operator workers get no launcher line (FACTS §8.3.2):\n" .. out)
  end)

  it("run_policy.backoff_limit: operator writes backoffLimit: 0 for 0, Flyte's payload drops it (FACTS §3.5)", function()
    local op = block(explain("PyTorchJob.run_policy.backoff_limit --target operator"), "operator")
    assert.truthy(op:find("backoffLimit: 0", 1, true), op)
    assert.falsy(op:match("\n%s*0:%s+nothing written"), op)
    local fl = block(explain("PyTorchJob.run_policy.backoff_limit --target flyte"), "flyte")
    assert.falsy(fl:find("backoffLimit: 0", 1, true), fl)
    -- what explain says is what the manifests do
    local job = kfjob.PyTorchJob{ worker = { replicas = 1 }, run_policy = { backoff_limit = 0 } }
    assert.are.equal(0, job:manifest{ name = "x", image = "i", target = "operator" }.spec.runPolicy.backoffLimit)
    assert.is_nil(job:manifest{ name = "x", image = "i", target = "flyte" }.spec.runPolicy.backoffLimit)
  end)

  it("prints different bytes for every target that runs the kind", function()
    for _, case in ipairs{
      { "PyTorchJob.worker.restart_policy", { "flyte", "flyte2", "operator", "trainer-2.2", "trainer-2.3" } },
      { "MPIJob.slots", { "flyte", "flyte2", "operator", "mpi-operator" } },
      { "PyTorchJob.run_policy.backoff_limit", { "flyte", "operator", "trainer-2.3" } },
    } do
      local seen = {}
      for _, t in ipairs(case[2]) do
        local out = explain(case[1] .. " --target " .. t)
        for t2, o2 in pairs(seen) do assert.are_not.equal(o2, out, case[1] .. ": " .. t .. " = " .. t2) end
        seen[t] = out
      end
    end
  end)

  it("errors have one prefix, 'kfjob: explain:' (README)", function()
    local _, err, rc = kf("explain PyTorchJob.worker.replcas")
    assert.are_not.equal(0, rc)
    assert.are.equal("kfjob: explain: PyTorchJob.worker: unknown field 'replcas' (did you mean 'replicas'?)\n", err)
    for _, args in ipairs{ "Bogus", "TFJob.worker --target trainer-2.3", "PyTorchJob.nope", "PyTorchJob.worker --target operater" } do
      local _, e2, rc2 = kf("explain " .. args)
      assert.are_not.equal(0, rc2, args)
      assert.falsy(e2:find("kfjob: kfjob", 1, true), e2)
      assert.falsy(e2:find("explain: kfjob", 1, true), e2)
      assert.falsy(e2:find("kfjob.explain", 1, true), e2)
    end
    local _, e3 = kf("schema Bogus")
    assert.falsy(e3:find("kfjob: kfjob", 1, true), e3)
  end)
end)

------------------------------------------------------------------------
-- 6. kfjob decode -f taskspec-json
------------------------------------------------------------------------

describe("issue 39: kfjob decode FILE -f taskspec-json", function()
  local d
  setup(function()
    d = tmpdir()
    writefile(d .. "/pt.lua", [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{ master = { image = "img:1" }, worker = { replicas = 3, image = "img:1" } }
]])
  end)

  it("writes a TaskSpec (JSON or bytes) back whole, as render -f taskspec-json wrote it", function()
    local base = q(d .. "/pt.lua") .. " --project p --domain d --version v1 --image img:1"
    local json, err, rc = kf("render " .. base .. " -f taskspec-json")
    assert.are.equal(0, rc, err)
    writefile(d .. "/ts.json", json)
    local out, err2, rc2 = kf("decode " .. q(d .. "/ts.json") .. " -f taskspec-json")
    assert.are.equal(0, rc2, err2)
    assert.are.equal(json, out)
    local _, err3, rc3 = kf("render " .. base .. " -f taskspec -o " .. q(d .. "/pb"))
    assert.are.equal(0, rc3, err3)
    local pb = assert(io.popen("ls " .. q(d .. "/pb") .. "/*.pb")):read("*l")
    local out4, err4, rc4 = kf("decode " .. q(pb) .. " -f taskspec-json")
    assert.are.equal(0, rc4, err4)
    assert.are.equal(json, out4)
  end)

  it("refuses a TaskTemplate (no task id to write back), exit non-zero", function()
    local tt, err, rc = kf("render " .. q(d .. "/pt.lua") .. " -f template --image img:1")
    assert.are.equal(0, rc, err)
    writefile(d .. "/tt.pb", tt)
    local out, err2, rc2 = kf("decode " .. q(d .. "/tt.pb") .. " -f taskspec-json")
    assert.are_not.equal(0, rc2, out)
    assert.truthy(rc2 <= 2, "exit " .. rc2)
    assert.are.equal("", out)
    assert.truthy(err2:find("TaskTemplate", 1, true), err2)
  end)
end)

------------------------------------------------------------------------
-- 7. kfjob diff
------------------------------------------------------------------------

describe("issue 39: kfjob diff reads strictly and compares as Kubernetes does", function()
  local d
  local BASE = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: x
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
%s
          volumes:
%s
]]
  local PYTORCH = [[
          - name: pytorch
            image: img:1
            env:
            - {name: %s, value: "%s"}
            - {name: %s, value: "%s"}
            resources:
              limits: {cpu: %s, memory: %s}
            volumeMounts:
%s]]
  local SIDE = "          - {name: side, image: \"s:1\"}"
  local function doc(o)
    local mounts = o.mounts_swapped
      and "            - {name: b, mountPath: /b}\n            - {name: a, mountPath: /a}"
      or "            - {name: a, mountPath: /a}\n            - {name: b, mountPath: /b}"
    local env = o.env_swapped and { "Y", "2", "X", o.x or "1" } or { "X", o.x or "1", "Y", "2" }
    local pt = PYTORCH:format(env[1], env[2], env[3], env[4], o.cpu or '"2"', o.mem or "1Gi", mounts)
    local containers = o.containers_swapped and (SIDE .. "\n" .. pt) or (pt .. "\n" .. SIDE)
    local va, vb = "          - {name: a, emptyDir: {}}", "          - {name: b, emptyDir: {sizeLimit: " .. (o.size or "500m") .. "}}"
    local vols = o.volumes_swapped and (vb .. "\n" .. va) or (va .. "\n" .. vb)
    return BASE:format(containers, vols)
  end
  setup(function() d = tmpdir() end)

  it("refuses a document with a duplicate key (exit 2), as decode and convert do", function()
    local good = writefile(d .. "/good.yaml", doc{})
    local dup = writefile(d .. "/dup.yaml", doc{}:gsub("      replicas: 1\n", "      replicas: 1\n      replicas: 2\n", 1))
    for _, args in ipairs{ q(dup) .. " " .. q(good), q(good) .. " " .. q(dup) } do
      local out, err, rc = kf("diff " .. args)
      assert.are.equal(2, rc, out .. err)
      assert.truthy(err:find("duplicate key 'replicas'", 1, true), err)
      assert.truthy(err:find("dup.yaml", 1, true) and err:find("line", 1, true), err)
    end
    local _, _, rc3 = kf("convert " .. q(dup))
    assert.are.equal(1, rc3)
    -- a JSON line with a key twice
    local cfg = writefile(d .. "/c.lua", "local kfjob = require 'kfjob'\nreturn kfjob.PyTorchJob{ master = { image = 'i' }, worker = { replicas = 3, image = 'i' } }\n")
    local json, err4, rc4 = kf("render " .. q(cfg) .. " -f manifest-json --name x")
    assert.are.equal(0, rc4, err4)
    local a = writefile(d .. "/a.json", json)
    local dj, n = json:gsub('"replicas":3', '"replicas":3,"replicas":4', 1)
    assert.are.equal(1, n)
    local b = writefile(d .. "/b.json", dj)
    local _, err5, rc5 = kf("diff " .. q(a) .. " " .. q(b))
    assert.are.equal(2, rc5, err5)
    assert.truthy(err5:find("b.json", 1, true), err5)
  end)

  it("matches containers, env, volumes and volumeMounts by name (or mountPath), and quantities by value", function()
    local a = writefile(d .. "/a.yaml", doc{})
    -- containers, volumes, volumeMounts in another order; quantities spelt otherwise: the same
    local same = writefile(d .. "/same.yaml", doc{ containers_swapped = true, volumes_swapped = true, mounts_swapped = true,
                                                   cpu = "2", mem = '"1073741824"', size = '"0.5"' })
    local out, err, rc = kf("diff " .. q(a) .. " " .. q(same))
    assert.are.equal(0, rc, out .. err)
    -- one env value changed in the reordered document: exactly that path, named by keys
    local b = writefile(d .. "/b.yaml", doc{ containers_swapped = true, volumes_swapped = true, x = "9" })
    out, err, rc = kf("diff " .. q(a) .. " " .. q(b))
    assert.are.equal(1, rc, err)
    local paths = {}
    for _, l in ipairs(lines(out)) do
      local p = l:match("^%s+(spec%.%S+):")
      if p then paths[#paths + 1] = p end
    end
    assert.are.same({ "spec.pytorchReplicaSpecs.Master.template.spec.containers[name=pytorch].env[name=X].value" }, paths)
    -- env is a list whose order matters
    local c = writefile(d .. "/c.yaml", doc{ env_swapped = true })
    out, err, rc = kf("diff " .. q(a) .. " " .. q(c))
    assert.are.equal(1, rc, err)
    assert.truthy(out:find("containers[name=pytorch].env (order)", 1, true), out)
    -- a real quantity difference: 1Gi is not 1G
    local e = writefile(d .. "/e.yaml", doc{ mem = "1G" })
    out, err, rc = kf("diff " .. q(a) .. " " .. q(e))
    assert.are.equal(1, rc, err)
    assert.truthy(out:find("containers[name=pytorch].resources.limits.memory", 1, true), out)
  end)

  it("two configs whose quantities are spelt differently render the same (-f manifest, -f json), exit 0", function()
    local a = writefile(d .. "/qa.lua", [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{ master = { image = "i", limits = { mem = "1Gi", cpu = "500m" } }, worker = { replicas = 2, image = "i", limits = { cpu = 2 } } }
]])
    local b = writefile(d .. "/qb.lua", [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{ master = { image = "i", limits = { mem = 1073741824, cpu = 0.5 } }, worker = { replicas = 2, image = "i", limits = { cpu = "2" } } }
]])
    for _, f in ipairs{ "manifest", "json", "template-json" } do
      local out, err, rc = kf("diff " .. q(a) .. " " .. q(b) .. " -f " .. f .. " --name x")
      assert.are.equal(0, rc, f .. ": " .. out .. err)
    end
  end)
end)

------------------------------------------------------------------------
-- 8. The whole-config JSON Schema reports mistakes at their path
------------------------------------------------------------------------

describe("issue 39: kfjob schema (if/then on kind) reports errors where they are", function()
  local PY = [==[
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
v = jsonschema.Draft202012Validator(schema)
for doc in json.loads(sys.stdin.read()):
    errs = list(v.iter_errors(doc))
    print(json.dumps([[list(e.absolute_path), e.message] for e in errs]))
]==]
  local d, ok_py
  setup(function()
    d = tmpdir()
    local _, _, rc = run("python3 -c 'import jsonschema'")
    ok_py = rc == 0
  end)
  local function validate(schema_args, docs_json)
    local sf = d .. "/s" .. tostring(#schema_args) .. ".json"
    local out, err, rc = kf("schema " .. schema_args)
    assert.are.equal(0, rc, err)
    writefile(sf, out)
    local py = writefile(d .. "/v.py", PY)
    local inp = writefile(d .. "/docs.json", docs_json)
    local res, err2, rc2 = run("python3 " .. q(py) .. " " .. q(sf) .. " < " .. q(inp))
    assert.are.equal(0, rc2, err2)
    local t = {}
    for _, l in ipairs(lines(res)) do t[#t + 1] = assert(kfjob.read_yaml(l)) end
    return t
  end

  it("a misspelt key is one error at its path, in all three shapes", function()
    if not ok_py then return pending("python3-jsonschema is not installed") end
    local r = validate("", [==[[
      {"kind": "PyTorchJob", "worker": {"replcas": 3}},
      {"jobs": {"bert": {"kind": "PyTorchJob", "worker": {"replcas": 3}}}},
      [{"kind": "TFJob", "worker": {"replicas": 1}}, {"kind": "PyTorchJob", "worker": {"replcas": 3}}],
      {"kind": "PyTorchJob", "master": {"requests": {"cpu": 4, "mem": "16Gi"}}, "worker": {"replicas": 3, "limits": {"gpu": 1}}, "shared_memory": true}
    ]]==])
    local want = { { "worker" }, { "jobs", "bert", "worker" }, { 1, "worker" } }
    for i = 1, 3 do
      assert.are.equal(1, #r[i], "doc " .. i .. ": " .. #r[i] .. " errors")
      assert.are.same(want[i], r[i][1][1])
      assert.truthy(r[i][1][2]:find("'replcas' was unexpected", 1, true), r[i][1][2])
    end
    assert.are.equal(0, #r[4], "the README's bert.yaml is valid")
  end)

  it("kfjob schema KIND and --target report at the path too", function()
    if not ok_py then return pending("python3-jsonschema is not installed") end
    local r = validate("PyTorchJob", [==[[{"kind": "PyTorchJob", "worker": {"replcas": 3}}]]==])
    assert.are.same({ "worker" }, r[1][1][1])
    r = validate("--target mpi-operator", [==[[
      {"kind": "MPIJob", "worker": {"replcas": 1}},
      {"jobs": {"a": {"kind": "MPIJob", "launcher": {"restart_policy": "always"}}}},
      {"kind": "MPIJob", "launcher": {"restart_policy": "on_failure"}}
    ]]==])
    assert.are.equal(1, #r[1])
    assert.are.same({ "worker" }, r[1][1][1])
    assert.are.equal(1, #r[2])
    assert.are.same({ "jobs", "a", "launcher", "restart_policy" }, r[2][1][1])
    assert.are.equal(0, #r[3])
  end)
end)

------------------------------------------------------------------------
-- 9. Lint: a GPU limit alone is the usual form
------------------------------------------------------------------------

describe("issue 39: no 'GPU limit without a GPU request' warning", function()
  local function gpu_warnings(list)
    local t = {}
    for _, w in ipairs(list) do
      if w.message:find("GPU limit without", 1, true) or (w.path:find("gpu", 1, true) and not w.message:find("differs", 1, true)) then
        t[#t + 1] = w.path .. ": " .. w.message
      end
    end
    return t
  end

  it("job:lint() of every kind with GPU limits alone has no GPU warning", function()
    local g = { gpu = 1 }
    local jobs = {
      kfjob.PyTorchJob{ master = { limits = g }, worker = { replicas = 2, limits = g }, shared_memory = true },
      kfjob.TFJob{ worker = { replicas = 2, limits = g }, ps = { replicas = 1, limits = g }, chief = { replicas = 1, limits = g } },
      kfjob.MPIJob{ worker = { replicas = 2, limits = { gpu = 2 } }, launcher = { limits = g } },
      kfjob.HorovodJob{ worker = { replicas = 2, limits = g } },
      kfjob.Elastic{ nnodes = 2, worker = { limits = g }, shared_memory = true },
      kfjob.PyTorchJob{ limits = g, worker = { replicas = 2 }, shared_memory = true },
      kfjob.JAXJob{ worker = { replicas = 2, limits = g } },
    }
    for _, j in ipairs(jobs) do
      for _, o in ipairs{ {}, { target = "operator", name = "x" } } do
        local ok, w = pcall(j.lint, j, o)
        if ok then assert.are.same({}, gpu_warnings(w), tostring(j)) end
      end
    end
    -- a PyTorchJob with GPU limits and shared memory has nothing to warn about
    assert.are.same({}, jobs[1]:lint())
  end)

  it("a GPU request that differs from the limit still warns (docs/MANIFESTS.md: GPU limit/request mismatches)", function()
    local j = kfjob.PyTorchJob{ master = { limits = { gpu = 1 }, requests = { gpu = 2 } }, worker = { replicas = 2, limits = { gpu = 1 } },
                                shared_memory = true }
    local w = j:lint()
    assert.are.equal(1, #w)
    assert.are.equal("master.requests.gpu", w[1].path)
  end)

  it("the README's bert.yaml passes kfjob check with no warning (also --strict)", function()
    local readme = assert(readfile("README.md"))
    local at = assert(readme:find("(`bert.yaml`)", 1, true), "README names bert.yaml")
    local yaml = readme:match("```yaml\n(.-)```", at)
    assert.truthy(yaml and yaml:find("kind: PyTorchJob", 1, true), "the bert.yaml block")
    local d = tmpdir()
    local f = writefile(d .. "/bert.yaml", yaml)
    for _, extra in ipairs{ "", " --strict" } do
      local out, err, rc = kf("check " .. q(f) .. extra)
      assert.are.equal(0, rc, out .. err)
      assert.truthy(out:find("Summary: 1 job found, 1 valid, 0 invalid, 0 warnings", 1, true), out .. err)
    end
    -- and the README's second command: the same config with a queue, on operator
    local fq = writefile(d .. "/bertq.yaml", yaml .. "scheduling: { queue: team-a }\n")
    local out, err, rc = kf("check " .. q(fq) .. " --target operator --image ghcr.io/acme/bert:1.2")
    assert.are.equal(0, rc, out .. err)
    -- SPEC §18: Kueue v0.19+ leaves kubeflow.org/v1 out of its default integrations (R39)
    assert.truthy(out:find("0 invalid, 1 warning", 1, true), out)
    assert.truthy(out:find("scheduling.queue: Kueue's default configuration stopped managing", 1, true), out)
  end)
end)

------------------------------------------------------------------------
-- 10. Smaller items
------------------------------------------------------------------------

describe("issue 39: shared_memory and a /dev/shm mount spelt otherwise", function()
  local function with_mount(path, group)
    local tpl = { spec = { volumes = { { name = "s", emptyDir = { medium = "Memory" } } },
                           containers = { { name = "primary", volumeMounts = { { name = "s", mountPath = path } } } } } }
    local t = { worker = { replicas = 1 }, shared_memory = true }
    if group then t.worker.pod_template = tpl else t.pod_template = tpl end
    return pcall(kfjob.PyTorchJob, t)
  end

  it("a primary-container mount whose path is /dev/shm after path cleaning conflicts (/dev/shm/, //dev/shm, /dev/shm/., /dev/../dev/shm)", function()
    for _, p in ipairs{ "/dev/shm", "/dev/shm/", "//dev/shm", "/dev/shm/.", "/dev/../dev/shm" } do
      local ok, e = with_mount(p)
      assert.is_false(ok, p .. " accepted")
      assert.truthy(tostring(e):find("shared_memory", 1, true), e)
    end
    for _, p in ipairs{ "/dev/shmx", "/dev/shm/x", "/data" } do
      local ok, e = with_mount(p)
      assert.is_true(ok, p .. ": " .. tostring(e))
    end
  end)

  it("lint counts a /dev/shm/ mount as shared memory (no shared_memory warning)", function()
    local function warns(path)
      local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, pod_template = { spec = {
        volumes = { { name = "s", emptyDir = { medium = "Memory" } } },
        containers = { { name = "primary", volumeMounts = { { name = "s", mountPath = path } } } } } } }
      for _, w in ipairs(j:lint()) do if w.path == "shared_memory" then return true end end
      return false
    end
    assert.is_false(warns("/dev/shm/"))
    assert.is_false(warns("/dev/shm"))
    assert.is_true(warns("/dev/shmx"))
  end)

  it("(sibling) a group pod_template's primary-container mount at /dev/shm or /dev/shm/ conflicts with the job's shared_memory", function()
    -- SPEC §13: a group's pod_template has the same checks and primary-container
    -- rules as the job's; two mounts at /dev/shm on one container is a pod the
    -- API server refuses (volumeMounts mountPath must be unique)
    for _, p in ipairs{ "/dev/shm", "/dev/shm/" } do
      local ok, j = with_mount(p, true)
      if ok then
        local fine, problems = j:check{ target = "operator", name = "x" }
        assert.is_nil(fine, "worker.pod_template mount at " .. p .. " plus shared_memory was accepted by construction and check")
        assert.truthy(problems and #problems > 0)
      end
    end
  end)
end)

describe("issue 39: LuaCATS definitions, header, variants' vars", function()
  local lib
  setup(function() lib = assert(readfile("library/kfjob.lua")) end)

  local function class_of_param(fn)
    local pre = lib:match("([^\n]*)\n[^\n]*\nfunction " .. fn:gsub("%.", "%%.") .. "%(t%) end")
    local cls = pre and pre:match("^%-%-%-@param t%??%s+(%S+)")
    assert.truthy(cls, "no @param t before function " .. fn)
    local body = lib:match("%-%-%-@class %(exact%) " .. cls:gsub("%.", "%%.") .. "\n(.-)\n\n")
    assert.truthy(body, "no class " .. cls)
    return cls, body
  end

  it("kfjob meta is the checked-in library/kfjob.lua", function()
    local out, err, rc = kf("meta")
    assert.are.equal(0, rc, err)
    assert.are.equal(lib, out)
  end)

  it("the class of kfjob.Worker's and kfjob.Launcher's argument has command? (string[])", function()
    for _, fn in ipairs{ "kfjob.Worker", "kfjob.Launcher" } do
      local cls, body = class_of_param(fn)
      assert.truthy(body:find("\n%-%-%-@field command%? string%[%]") or body:find("^%-%-%-@field command%? string%[%]"),
                    cls .. " lacks command?:\n" .. body)
      assert.truthy(body:find("@field replicas?", 1, true), body)
      assert.truthy(body:find("@field image?", 1, true), body)
    end
  end)

  it("template.variants' opts list vars in library/kfjob.lua and docs/API.md", function()
    local sig = lib:match("(%-%-%-@param opts%?[^\n]*)\n[^\n]*\nfunction kfjob%.template%.variants")
    assert.truthy(sig, "no opts for variants")
    assert.truthy(sig:find("vars?:", 1, true), sig)
    local api = assert(readfile("docs/API.md"))
    local row = api:match("\n| `variants%(base, matrix, opts%)` |[^\n]*")
    assert.truthy(row, "variants row in docs/API.md")
    assert.truthy(row:find("opts.vars", 1, true), row)
  end)

  it("variants' vars fill the base's ${...} and the name, a matrix parameter of the same name winning", function()
    local template = require "kfjob.template"
    local base = { worker = { replicas = 1, image = "ghcr.io/acme/bert:${tag}" } }
    local got = {}
    for name, job in template.variants(base, { ["worker.replicas"] = { 2, 4 } },
                                       { kind = "PyTorchJob", name = "b-${tag}-w${worker.replicas}", vars = { tag = "v1" } }) do
      got[#got + 1] = name .. "=" .. job.worker.image
    end
    assert.are.same({ "b-v1-w2=ghcr.io/acme/bert:v1", "b-v1-w4=ghcr.io/acme/bert:v1" }, got)
    got = {}
    for name, job in template.variants(base, { tag = { "v2" } },
                                       { kind = "PyTorchJob", name = "b-${tag}", vars = { tag = "v1" } }) do
      got[#got + 1] = name .. "=" .. job.worker.image
    end
    assert.are.same({ "b-v2=ghcr.io/acme/bert:v2" }, got)
  end)

  it("include/kfjob.h has no broken \\return line", function()
    local h = assert(readfile("include/kfjob.h"))
    for n, l in ipairs(lines(h)) do
      assert.falsy(l:match("^eturn"), "line " .. n .. ": " .. l)
      assert.falsy(l:find("\r", 1, true), "line " .. n .. " has a CR")
      if l:find("\\return", 1, true) then assert.truthy(l:match("^%s*%*%s+\\return "), "line " .. n .. ": " .. l) end
    end
    assert.truthy(h:find(" * \\return 0 to continue; anything else stops (::KFJOB_ESTOPPED).\n */\ntypedef int (*kfjob_import_fn)", 1, true))
    local imp = h:match("(/%*%*\n %* Read Kubernetes manifests.-%*/)\nKFJOB_API kfjob_status kfjob_host_import_manifests")
    assert.truthy(imp and imp:find("\n * \\return ::KFJOB_OK;", 1, true), imp)
  end)
end)

describe("issue 39: the pkg-config line against a non-system prefix", function()
  it("every pkg-config line in README.md and docs/*.md carries -Wl,-rpath", function()
    local files = { "README.md" }
    for f in io.popen("ls docs/*.md"):lines() do files[#files + 1] = f end
    local found = 0
    for _, f in ipairs(files) do
      for n, l in ipairs(lines(assert(readfile(f)))) do
        if l:find("pkg-config --cflags --libs kfjob", 1, true) then
          found = found + 1
          assert.truthy(l:find("-Wl,-rpath", 1, true), f .. ":" .. n .. ": " .. l)
        end
      end
    end
    assert.truthy(found >= 1, "no pkg-config line in the docs")
  end)

  it("installed to a temporary prefix, a program built with docs/HOST.md's line runs (and one without -rpath does not find the library)", function()
    if not (have("cc") and have("pkg-config") and have("cmake")) then return pending("cc, pkg-config or cmake missing") end
    -- the ASan stage preloads the sanitizer into every child (cc1, bash): the
    -- plain run covers this one
    if (os.getenv("LD_PRELOAD") or ""):find("asan", 1, true) then return pending("sanitizer run") end
    local d = tmpdir()
    local _, err, rc = run("cmake --install " .. q(BUILD) .. " --prefix " .. q(d .. "/prefix"))
    assert.are.equal(0, rc, err)
    writefile(d .. "/app.c", "#include <stdio.h>\n#include <kfjob.h>\nint main(void) { printf(\"%s\\n\", kfjob_version_string()); return 0; }\n")
    local host = assert(readfile("docs/HOST.md"))
    local line = host:match("\n(cc app%.c [^\n]*)")
    assert.truthy(line, "the cc line of docs/HOST.md")
    local env = "cd " .. q(d) .. " && PKG_CONFIG_PATH=" .. q(d .. "/prefix/lib/pkgconfig") .. " "
    local _, err2, rc2 = run(env .. "sh -c " .. q(line .. " -o app1"))
    assert.are.equal(0, rc2, err2)
    local out3, err3, rc3 = run("env -u LD_LIBRARY_PATH " .. q(d .. "/app1"))
    assert.are.equal(0, rc3, err3)
    assert.are.equal(kfjob._VERSION .. "\n", out3)
    assert.are.equal("0.1.0", kfjob._VERSION)
    -- without the rpath: the documented failure (so the rpath is what makes it run)
    local _, err4, rc4 = run(env .. "sh -c " .. q("cc app.c $(pkg-config --cflags --libs kfjob) -o app2"))
    assert.are.equal(0, rc4, err4)
    local _, err5, rc5 = run("env -u LD_LIBRARY_PATH " .. q(d .. "/app2"))
    assert.are_not.equal(0, rc5)
    assert.truthy(err5:find("cannot open shared object file", 1, true), err5)
    -- LD_LIBRARY_PATH is the documented alternative
    local out6, _, rc6 = run("LD_LIBRARY_PATH=" .. q(d .. "/prefix/lib") .. " " .. q(d .. "/app2"))
    assert.are.equal(0, rc6)
    assert.are.equal("0.1.0\n", out6)
  end)
end)

------------------------------------------------------------------------
-- 11. README size and the reference in docs/
------------------------------------------------------------------------

describe("issue 39: README at most 1 300 lines, the reference in docs/", function()
  local function anchor(h)
    h = h:lower():gsub("[^%w%- _]", ""):gsub(" ", "-")
    return h
  end
  local function anchors_of(text)
    local set, in_code = {}, false
    for _, l in ipairs(lines(text)) do
      if l:match("^```") then in_code = not in_code end
      local h = not in_code and l:match("^#+%s+(.*)$")
      if h then set[anchor(h)] = true end
    end
    return set
  end

  it("README.md has at most 1 300 lines", function()
    local n = #lines(assert(readfile("README.md")))
    assert.truthy(n <= 1300, "README.md has " .. n .. " lines")
  end)

  it("every README link into docs/ names an existing page and heading", function()
    local readme = assert(readfile("README.md"))
    local n = 0
    for target in readme:gmatch("%]%((docs/[^)%s]+)%)") do
      local file, frag = target:match("^([^#]+)#?(.*)$")
      local text = readfile(file)
      assert.truthy(text, "README links to a missing " .. file)
      if frag ~= "" then assert.truthy(anchors_of(text)[frag], "README links to " .. target .. ", which has no such heading") end
      n = n + 1
    end
    assert.truthy(n >= 10, "README links to " .. n .. " docs pages")
  end)
end)

------------------------------------------------------------------------
-- 12. Layout
------------------------------------------------------------------------

describe("issue 39: layout", function()
  it("src/lua/lkfjob.h is renamed (the binding's private header no longer shares lkfjob.c's name)", function()
    assert.is_nil(readfile("src/lua/lkfjob.h"))
    local out = run("ls src/lua")
    assert.truthy(out:find("%.h\n"), "src/lua has a private header:\n" .. out)
  end)

  it("at most four files loose in src/core", function()
    local out = run("find src/core -maxdepth 1 -type f")
    local n = #lines(out)
    assert.truthy(n <= 4, n .. " files loose in src/core:\n" .. out)
  end)
end)
