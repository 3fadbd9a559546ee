-- Data configs (SPEC §15): `kfjob render|check|env` take .yaml, .yml and
-- .json configs - one job with its kind, a list of jobs, or
-- {jobs: {name: job}} - built by the same constructors as Lua configs.
-- A data config and its Lua twin render the same bytes (every format and
-- target below); bad input gets "FILE:LINE: PATH: problem", exit 1 and
-- nothing rendered.  Expected messages are written by hand from the
-- format above and the constructors' own messages (spec/errors_spec.lua).
local util = require "util"
if not util.cli_ok then
  describe("data configs", function() pending(util.cli_why()) end)
  return
end

local quote, slurp, kfjob = util.quote, util.slurp, util.kfjob

local TMP = os.tmpname()
os.remove(TMP)
assert(os.execute("mkdir -p " .. quote(TMP) .. "/lua " .. quote(TMP) .. "/data " .. quote(TMP) .. "/out"))

local function spit(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

-- Writes a twin pair: lua/NAME.lua and data/NAME.EXT (same stem: the same
-- default job names).
local function twin(name, lua, ext, data)
  local l, d = TMP .. "/lua/" .. name .. ".lua", TMP .. "/data/" .. name .. "." .. ext
  spit(l, lua)
  spit(d, data)
  return l, d
end

-- The twins: Lua source, then data configs in one or more syntaxes.
local TWINS = {
  pytorch = {
    lua = [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{
  master = { image = "ghcr.io/acme/bert:1.2", limits = { cpu = 8, mem = "32Gi", gpu = 2 } },
  worker = { replicas = 4, image = "ghcr.io/acme/bert:1.2",
             limits = { cpu = 8, mem = "32Gi", gpu = 2 }, restart_policy = "never" },
  run_policy = { clean_pod_policy = "running", backoff_limit = 3 },
}
]],
    yaml = [[
# yaml-language-server: $schema=./kfjob.schema.json
kind: PyTorchJob
master:
  image: ghcr.io/acme/bert:1.2
  limits: &res {cpu: 8, mem: 32Gi, gpu: 2}
worker:
  replicas: 4
  image: "ghcr.io/acme/bert:1.2"
  limits: *res
  restart_policy: never
run_policy:
  clean_pod_policy: running
  backoff_limit: 3
]],
    json = [[
{
  "kind": "PyTorchJob",
  "master": {"image": "ghcr.io/acme/bert:1.2", "limits": {"cpu": 8, "mem": "32Gi", "gpu": 2}},
  "worker": {"replicas": 4, "image": "ghcr.io/acme/bert:1.2",
             "limits": {"cpu": 8, "mem": "32Gi", "gpu": 2}, "restart_policy": "never"},
  "run_policy": {"clean_pod_policy": "running", "backoff_limit": 3}
}
]],
    runs = {
      { "render", "-f", "json" }, { "render", "-f", "yaml" }, { "render", "-f", "pb" },
      { "render", "-f", "template-json" }, { "render", "-f", "manifest" },
      { "render", "-f", "manifest", "--target", "flyte" },
      { "render", "-f", "manifest", "--target", "trainer-2.3" },
      { "render", "-f", "taskspec-json", "--project", "p", "--domain", "d", "--version", "v1" },
      { "check" }, { "env" }, { "env", "--target", "trainer-2.2", "-f", "json" },
    },
  },
  mpi = {
    lua = [[
local kfjob = require "kfjob"
return kfjob.MPIJob{
  launcher = { image = "img:1", command = { "mpirun", "-np", "4", "python", "train.py" } },
  worker = { replicas = 2, image = "img:1", limits = { gpu = 2 } },
  slots = 2,
}
]],
    yml = [[
kind: MPIJob
launcher:
  image: img:1
  command:
    - mpirun
    - -np
    - "4"
    - python
    - train.py
worker: {replicas: 2, image: "img:1", limits: {gpu: 2}}
slots: 2
]],
    runs = {
      { "render", "-f", "manifest", "--target", "mpi-operator" }, { "render", "-f", "json" },
      { "render", "-f", "template" }, { "env", "--target", "mpi-operator" },
    },
  },
  named = {
    lua = [[
local kfjob = require "kfjob"
return {
  tf = kfjob.TFJob{ worker = { replicas = 2, image = "tf:2" }, ps = { replicas = 1, image = "tf:2" } },
  elastic = kfjob.Elastic{ worker = { image = "pt:2" }, nnodes = "1:4",
                           nproc_per_node = 8, max_restarts = 3 },
  jax = kfjob.JAXJob{ worker = { replicas = 2, image = "jax:1" } },
}
]],
    yaml = [[
jobs:
  tf:
    kind: TFJob
    worker: {replicas: 2, image: "tf:2"}
    ps: {replicas: 1, image: "tf:2"}
  elastic:
    kind: Elastic
    worker: {image: "pt:2"}
    nnodes: "1:4"
    nproc_per_node: 8
    max_restarts: 3
  jax:
    kind: JAXJob
    worker: {replicas: 2, image: "jax:1"}
]],
    json = [[
{"$schema": "./kfjob.schema.json", "jobs": {
  "tf": {"kind": "TFJob", "worker": {"replicas": 2, "image": "tf:2"}, "ps": {"replicas": 1, "image": "tf:2"}},
  "elastic": {"kind": "Elastic", "worker": {"image": "pt:2"}, "nnodes": "1:4",
              "nproc_per_node": 8, "max_restarts": 3},
  "jax": {"kind": "JAXJob", "worker": {"replicas": 2, "image": "jax:1"}}}}
]],
    runs = {
      { "render", "-f", "manifest" }, { "render", "-f", "manifest-json" }, { "check" },
      { "render", "-f", "json", "--name", "tf" },
      { "render", "-f", "manifest-json", "--name", "elastic" }, { "env", "--name", "tf" },
    },
  },
  list = {
    lua = [[
local kfjob = require "kfjob"
return { kfjob.XGBoostJob{ master = { image = "x:1" }, worker = { replicas = 3, image = "x:1" } },
         kfjob.PaddleJob{ master = { image = "p:1" }, worker = { replicas = 2, image = "p:1" } },
         kfjob.HorovodJob{ worker = { replicas = 2, image = "h:1" }, launcher = { image = "h:1" }, slots = 4 } }
]],
    yaml = [[
- kind: XGBoostJob
  master: {image: "x:1"}
  worker: {replicas: 3, image: "x:1"}
- kind: PaddleJob
  master: {image: "p:1"}
  worker: {replicas: 2, image: "p:1"}
- kind: HorovodJob
  worker: {replicas: 2, image: "h:1"}
  launcher: {image: "h:1"}
  slots: 4
]],
    runs = { { "render", "-f", "manifest" }, { "check" }, { "env" } },
  },
  pod = {
    lua = [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{
  master = { image = "img:1" },
  worker = { replicas = 3, image = "img:1", limits = { gpu = 8 },
             pod_template = { spec = { nodeSelector = { ["cloud.google.com/gke-spot"] = "true" } } } },
  shared_memory = true,
  accelerator = "nvidia-tesla-a100",
  requests = { cpu = 32, mem = "256Gi" },
  pod_template = {
    metadata = { labels = { team = "nlp" } },
    spec = {
      tolerations = { { key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" } },
      containers = { { name = "primary", volumeMounts = { { name = "data", mountPath = "/data" } } } },
      volumes = { { name = "data", persistentVolumeClaim = { claimName = "imagenet" } } },
    },
  },
  scheduling = { queue = "team-a", max_exec_time = 7200, gang = { min_available = 4 } },
}
]],
    yaml = [[
kind: PyTorchJob
master: {image: "img:1"}
worker:
  replicas: 3
  image: "img:1"
  limits: {gpu: 8}
  pod_template:
    spec:
      nodeSelector: {cloud.google.com/gke-spot: "true"}
shared_memory: true
accelerator: nvidia-tesla-a100
requests: {cpu: 32, mem: 256Gi}
pod_template:
  metadata:
    labels: {team: nlp}
  spec:
    tolerations:
      - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
    containers:
      - name: primary
        volumeMounts: [{name: data, mountPath: /data}]
    volumes:
      - name: data
        persistentVolumeClaim: {claimName: imagenet}
scheduling:
  queue: team-a
  max_exec_time: 7200
  gang: {min_available: 4}
]],
    runs = {
      { "render", "-f", "manifest", "--target", "operator" },
      { "render", "-f", "manifest-json", "--target", "operator" },
      { "env", "--target", "operator", "-f", "json" }, { "check", "--target", "operator" },
    },
  },
}

describe("data configs render as their Lua twins", function()
  local names = {}
  for name in pairs(TWINS) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local t = TWINS[name]
    for _, ext in ipairs { "yaml", "yml", "json" } do
      if t[ext] then
        local l, d = twin(name, t.lua, ext, t[ext])
        for _, run in ipairs(t.runs) do
          it(("%s.%s: kfjob %s"):format(name, ext, table.concat(run, " ")), function()
            local args = { table.unpack(run) }
            args[#args + 1] = l
            local lc, lout, lerr = kfjob(table.unpack(args))
            args[#args] = d
            local dc, dout, derr = kfjob(table.unpack(args))
            assert.are.equal(0, lc, lerr)
            assert.are.equal(0, dc, derr)
            assert.is_true(#lout > 0)
            -- check's lines name the config file
            assert.are.equal(lout:gsub(l:gsub("%p", "%%%0"), "CONFIG"),
                             dout:gsub(d:gsub("%p", "%%%0"), "CONFIG"))
          end)
        end
      end
    end
  end

  it("writes the same files with -o DIR", function()
    local l, d = twin("named", TWINS.named.lua, "yaml", TWINS.named.yaml)
    assert.are.equal(0, (kfjob("render", "-f", "manifest", "-o", TMP .. "/out/l", l)))
    assert.are.equal(0, (kfjob("render", "-f", "manifest", "-o", TMP .. "/out/d", d)))
    for _, job in ipairs { "elastic", "jax", "tf" } do
      local a = slurp(TMP .. "/out/l/" .. job .. ".manifest.yaml")
      assert.is_truthy(a)
      assert.are.equal(a, slurp(TMP .. "/out/d/" .. job .. ".manifest.yaml"))
    end
  end)

  it("reads YAML 1.2: yes is a string, 0x10 an integer, a quoted number a string", function()
    -- restart_policy takes strings only: a plain `yes` reaches it as one
    spit(TMP .. "/data/yes.yaml", "kind: TFJob\nworker: {replicas: 0x2, restart_policy: yes}\n")
    local code, _, err = kfjob("check", TMP .. "/data/yes.yaml")
    assert.are.equal(1, code)
    assert.are.equal(TMP .. "/data/yes.yaml:2: worker.restart_policy: unknown restart policy 'yes'"
      .. " (expected never, on_failure, always or exit_code)\n", err:match("^[^\n]*\n"))
    spit(TMP .. "/data/q.yaml", 'kind: TFJob\nworker: {replicas: "2"}\n')
    code, _, err = kfjob("check", TMP .. "/data/q.yaml")
    assert.are.equal(1, code)
    assert.are.equal(TMP .. "/data/q.yaml:2: worker.replicas: expected an integer, got string\n",
      err:match("^[^\n]*\n"))
    spit(TMP .. "/data/hex.yaml", "kind: TFJob\nworker: {replicas: 0x2, image: \"i:1\"}\n")
    local _, out = kfjob("render", "-f", "manifest", TMP .. "/data/hex.yaml")
    assert.is_truthy(out:find("replicas: 2\n", 1, true))
  end)

  it("reads JSON escapes libyaml cannot (a surrogate pair) by the JSON reader", function()
    spit(TMP .. "/data/emoji.json", '{"kind": "TFJob", "worker": {"replicas": 1, "image": "i:1"},'
      .. ' "pod_template": {"metadata": {"annotations": {"note": "\\ud83d\\ude00"}}}}')
    local code, out, err = kfjob("render", "-f", "manifest-json", TMP .. "/data/emoji.json")
    assert.are.equal(0, code, err)
    assert.is_truthy(out:find('"note":"\240\159\152\128"', 1, true))
  end)

  it("takes an empty list and an empty jobs mapping as no jobs, as Lua's {}", function()
    for _, text in ipairs { "[]\n", "jobs: {}\n" } do
      spit(TMP .. "/data/empty.yaml", text)
      local code, out = kfjob("render", TMP .. "/data/empty.yaml")
      assert.are.equal(0, code)
      assert.are.equal("", out)
    end
  end)

  it("refuses params, which only a Lua config reads", function()
    local _, d = twin("pytorch", TWINS.pytorch.lua, "yaml", TWINS.pytorch.yaml)
    local code, out, err = kfjob("render", "--set", "n=2", d)
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.are.equal(d .. ": a data config takes no params (--set, --set-string): only a Lua config reads them\n",
      err)
  end)

  it("names one job by --name, and says when none has it", function()
    local _, d = twin("named", TWINS.named.lua, "yaml", TWINS.named.yaml)
    local code, _, err = kfjob("render", "--name", "nope", d)
    assert.are.equal(1, code)
    assert.are.equal(d .. ": no job named 'nope'\n", err)
  end)
end)

-- ---- bad input: exit 1, nothing on stdout, nothing written -------------

local function refused(file, text, message)
  local p = TMP .. "/data/" .. file
  spit(p, text)
  for _, cmd in ipairs { "render", "check", "env" } do
    local out_dir = TMP .. "/out/bad-" .. cmd
    local args = cmd == "render" and { cmd, "-f", "manifest", "-o", out_dir, p } or { cmd, p }
    local code, out, err = kfjob(table.unpack(args))
    assert.are.equal(1, code, err)
    assert.are.equal(p .. ":" .. message, err:match("^[^\n]*"))
    if cmd == "check" then
      assert.are.equal("Summary: the config failed before it gave any job\n", out)
    else
      assert.are.equal("", out)
    end
    if cmd == "render" then   -- no job file (the empty list of outputs aside)
      local f = io.popen("ls -A " .. quote(out_dir) .. " 2>/dev/null")
      assert.are.equal("", f:read("a"):gsub("%.kfjob%-outputs\n", ""))
      f:close()
    end
  end
end

describe("data configs: bad input", function()
  teardown(function() os.execute("rm -rf " .. quote(TMP)) end)   -- the last block
  it("an unknown field, with its path in the jobs and its line", function()
    refused("replcas.yaml", "jobs:\n  bert:\n    kind: PyTorchJob\n    worker:\n      replcas: 2\n",
      "5: jobs.bert.worker.replcas: unknown field (did you mean 'replicas'?)")
  end)
  it("an error in the second job renders the first neither", function()
    refused("second.yaml", "- kind: TFJob\n  worker: {replicas: 1, image: i}\n- kind: TFJob\n"
      .. "  worker: {replicas: 1, image: i}\n  run_policy: {backoff_limit: -1}\n",
      "5: [2].run_policy.backoff_limit: must be >= 0 (got -1)")
  end)
  it("a field of the wrong type (JSON)", function()
    refused("type.json", '{\n  "kind": "TFJob",\n  "worker": {\n    "replicas": 2,\n    "command": "x"\n  }\n}\n',
      "5: worker.command: only MPI and Horovod groups take a command")
  end)
  it("a nested list item of the wrong type", function()
    refused("item.yaml", "kind: MPIJob\nworker: {replicas: 1}\nlauncher:\n  command:\n    - mpirun\n    - [x]\n",
      "6: launcher.command[2]: expected a string, got a list")
  end)
  it("duplicate keys", function()
    refused("dup.yaml", "kind: TFJob\nworker:\n  replicas: 1\n  replicas: 2\n",
      "4: worker: duplicate key 'replicas' (first given on line 3)")
  end)
  it("YAML in a .json config", function()
    refused("yamlish.json", '{"kind": "TFJob",\n "worker": {replicas: 1}}\n',
      "2: expected string or '}' near 'replicas' (column 20)")
    refused("comment.json", "# yaml-language-server: $schema=x\n{\"kind\": \"TFJob\"}\n",
      "1: invalid token near '#' (column 1)")
  end)
  it("duplicate keys in JSON", function()
    refused("dup.json", '{"kind": "TFJob",\n "kind": "PyTorchJob"}\n',
      "2: duplicate object key near '\"kind\"' (column 7)")
  end)
  it("a non-string key", function()
    refused("key.yaml", "kind: TFJob\nworker:\n  1: x\n",
      "3: worker: a key must be a string, not an integer (quote it)")
  end)
  it("a mapping as a key", function()
    refused("mapkey.yaml", "kind: TFJob\n? {a: 1}\n: x\n", "2: a key must be a string, not a mapping")
  end)
  it("an alias bomb", function()
    local t = { "kind: TFJob", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]" }
    for i = 1, 8 do
      local r = {}
      for k = 1, 10 do r[k] = "*a" .. (i - 1) end
      t[#t + 1] = ("a%d: &a%d [%s]"):format(i, i, table.concat(r, ", "))
    end
    refused("bomb.yaml", table.concat(t, "\n") .. "\n",
      "7: a5[1]: more than 200000 nodes (aliases expanded)")
  end)
  it("an alias naming no anchor", function()
    refused("alias.yaml", "kind: TFJob\nworker: *w\n", "2: worker: alias *w names no anchor before it")
  end)
  it("a YAML syntax error", function()
    refused("syntax.yaml", "kind: TFJob\nworker: {replicas: 1\n",
      "3: did not find expected ',' or '}' (while parsing a flow mapping) (column 1)")
  end)
  it("a tab in the indentation", function()
    refused("tab.yaml", "kind: TFJob\nworker:\n\treplicas: 1\n",
      "3: a tab in the indentation (YAML indents with spaces) (column 1)")
  end)
  it("invalid UTF-8", function()
    refused("utf8.yaml", "kind: TFJob\nworker: {image: \"\xff\"}\n", "2: invalid leading UTF-8 octet")
  end)
  it("several documents", function()
    refused("docs.yaml", "kind: TFJob\n---\nkind: TFJob\n",
      "3: a second document: a data config is one document (a list of jobs goes in one)")
  end)
  it("an empty config", function()
    refused("empty.yaml", "# nothing\n", "1: the config is empty: a data config is one job (a mapping with its"
      .. " kind), a list of jobs or {jobs: {name: job}}")
  end)
  it("a wrong top-level shape", function()
    refused("shape.yaml", "worker: {replicas: 1}\n", "1: the mapping has neither 'kind' nor 'jobs': a data config"
      .. " is one job (a mapping with its kind), a list of jobs or {jobs: {name: job}}")
    refused("scalar.yaml", "TFJob\n", "1: expected a mapping or a list: a data config is one job (a mapping with"
      .. " its kind), a list of jobs or {jobs: {name: job}}")
    refused("jobs.yaml", "jobs:\n  - kind: TFJob\n", "1: jobs: expected a mapping of job names to jobs")
    refused("extra.yaml", "jobs: {}\nkind2: x\n",
      "2: unknown top-level key 'kind2' (a {jobs: ...} config has only 'jobs' and '$schema')")
    refused("item.yml", "- kind: TFJob\n  worker: {replicas: 1}\n- 3\n",
      "3: [2]: a job must be a mapping with its kind")
  end)
  it("a job without a kind, or with an unknown one", function()
    refused("nokind.yaml", "jobs:\n  a:\n    worker: {replicas: 1}\n", "2: jobs.a: the job has no kind")
    refused("kind.yaml", "jobs:\n  a:\n    kind: PytorchJob\n",
      "3: jobs.a.kind: unknown kind 'PytorchJob' (did you mean 'PyTorchJob'?)")
    refused("kindtype.yaml", "kind: 3\n", "1: kind: expected a string")
  end)
  it("a null in a list", function()
    refused("null.yaml", "kind: MPIJob\nworker: {replicas: 1}\nlauncher:\n  command: [mpirun, null]\n",
      "4: launcher.command[2]: null is not allowed in a list")
  end)
  it("a job name that cannot name a file", function()
    refused("name.yaml", 'jobs:\n  "a\\u0001b":\n    kind: TFJob\n',
      "2: jobs: job 'a\\x01b': job names must not contain control characters (C0, DEL or C1)")
  end)
end)
