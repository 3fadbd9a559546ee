-- Hardening, round 4 (issue 32), the leftovers: decode info fed back with a
-- pod template, the time limit's default in --help, quantities above 2^53,
-- overflowing sums in `kfjob check`, NUL bytes in enum and option strings,
-- and the API server's pod rules beyond the first set (resources, volume
-- and port names, mount paths).  Expected values are written from the
-- Kubernetes sources cited per case, never copied from kfjob's output.
local kfjob = require "kfjob"
local util = require "util"

describe("decode info fed back for a job with a pod template", function()
  local function pod_job()
    return kfjob.PyTorchJob{
      worker = { replicas = 2 }, requests = { cpu = 4 },
      pod_template = { spec = {
        volumes = { { name = "data", emptyDir = {} } },
        containers = { { name = "primary", volumeMounts = { { name = "data", mountPath = "/data" } } },
                       { name = "metrics", image = "busybox:1.36" } } } },
    }
  end
  local OPTS = { id = { project = "p", domain = "d", name = "n", version = "1" },
                 container = { image = "img:1", args = { "python", "t.py" } },
                 config = { team = "nlp" } }
  local function strip(info)
    local t = {}
    for k, v in pairs(info) do t[k] = v end
    t.type, t.runtime = nil, nil
    return t
  end

  it("task_spec -> decode_task_spec -> task_spec(info) gives the same bytes", function()
    local bytes = pod_job():task_spec(OPTS)
    local back, info = kfjob.decode_task_spec(bytes)
    assert.is_truthy(back, info)
    assert.are.equal(bytes, back:task_spec(strip(info)))
  end)

  it("task_template -> decode_task_template -> task_template(info) gives the same bytes", function()
    local bytes = pod_job():task_template(OPTS)
    local back, info = kfjob.decode_task_template(bytes)
    assert.is_truthy(back, info)
    assert.are.equal(bytes, back:task_template(strip(info)))
  end)

  it("info.config keeps the user's entries and leaves primary_container_name to the job", function()
    local _, info = kfjob.decode_task_template(pod_job():task_template(OPTS))
    assert.are.same({ team = "nlp" }, info.config)
    _, info = kfjob.decode_task_template(pod_job():task_template{ id = OPTS.id })
    assert.is_nil(info.config)
  end)

  it("without a pod template info.config is the template's config as it was", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 } }
    local _, info = kfjob.decode_task_template(j:task_template(OPTS))
    assert.are.same({ team = "nlp" }, info.config)
  end)
end)

describe("the CLI's --time-limit default", function()
  if not util.cli_ok then pending(util.cli_why()) return end
  it("render --help names the 60 s default the driver applies (KFJOB_DEFAULT_TIME_LIMIT_MS)", function()
    local code, out = util.kfjob("render", "--help")
    assert.are.equal(0, code)
    local seg = out:match("%-%-time%-limit DURATION.-\n[^\n]*")
    assert.is_truthy(seg, out)
    assert.is_truthy(seg:find("(default 60s; 0: none)", 1, true), seg)
  end)
end)

describe("API server pod rules, round 2: what the API server accepts is built", function()
  local function pj(spec)
    return kfjob.PyTorchJob{ worker = { replicas = 1 }, pod_template = { spec = spec } }
  end
  it("a request equal to its limit in other units, and below it (validateResourceRequirements)", function()
    assert.is_true(kfjob.is_job(pj{ containers = { { name = "primary" }, { name = "s", image = "i",
      resources = { requests = { memory = "1Gi", cpu = "500m", ["nvidia.com/gpu"] = 2 },
                    limits = { memory = "1024Mi", cpu = "0.5", ["nvidia.com/gpu"] = "2" } } } } }))
    assert.is_true(kfjob.is_job(pj{ containers = { { name = "primary" }, { name = "s", image = "i",
      resources = { requests = { cpu = "250m", ["ephemeral-storage"] = "1Gi" },
                    limits = { cpu = 1, ["hugepages-2Mi"] = "64Mi" } } } } }))
  end)
  it("63-character names and label values, 15-character port names, relative subPaths", function()
    local n63 = string.rep("a", 63)
    assert.is_true(kfjob.is_job(pj{
      volumes = { { name = n63, emptyDir = {} } },
      tolerations = { { key = "example.com/pool", operator = "Equal", value = n63, effect = "NoSchedule" } },
      containers = { { name = "primary", ports = { { containerPort = 80, name = "abcdefghijklm-1" },
                                                  { containerPort = 81, protocol = "UDP" },
                                                  { containerPort = 82, protocol = "SCTP" } },
                       volumeMounts = { { name = n63, mountPath = "/d", subPath = "a/..b/c.." } } } } }))
    assert.is_true(kfjob.is_job(kfjob.PyTorchJob{ worker = { replicas = 1, limits = { gpu = 1 } },
      accelerator = { device = n63, partition_size = "1g.5gb" } }))
  end)
  it("a port name may repeat across containers (unique per container)", function()
    assert.is_true(kfjob.is_job(pj{ containers = {
      { name = "primary", ports = { { containerPort = 80, name = "http" } } },
      { name = "s", image = "i", ports = { { containerPort = 81, name = "http" } } } } }))
  end)
  it("a decoded TaskTemplate is checked the same way", function()
    local j = pj{ containers = { { name = "primary" }, { name = "s", image = "i",
      resources = { requests = { cpu = "1" }, limits = { cpu = "1" } } } } }
    local t = j:task_template{ format = "json" }:gsub('"limits":{"cpu":"1"}', '"limits":{"cpu":"500m"}')
    local back, err = kfjob.decode_task_template(t)
    assert.is_nil(back)
    assert.are.equal('kfjob.decode_task_template: k8s_pod.spec.containers[2].resources.requests: '
      .. 'Invalid value: "1": must be less than or equal to cpu limit of 500m', err)
  end)
end)

describe("kfjob check: a quantity too large to total exactly", function()
  if not util.cli_ok then pending(util.cli_why()) return end
  local function cfg(body)
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write('local kfjob = require "kfjob"\nreturn ', body, "\n")
    f:close()
    return path
  end
  it("1e999999 (a valid quantity beyond 10^68) is the job's error, not a total of 0", function()
    local p = cfg('kfjob.TFJob{ worker = { replicas = 3, image = "i:1", requests = { cpu = "1e999999" } } }')
    local code, out, err = util.kfjob("check", p, "-f", "json")
    os.remove(p)
    assert.are.equal(1, code, out .. err)
    assert.is_truthy(out:find("kfjob.TFJob: tfReplicaSpecs.Worker: quantity '1e999999' is too large to total "
      .. "(kfjob sums quantities below 10^68 exactly)", 1, true), out)
    assert.is_truthy(out:find('"cpuRequest":"0"', 1, true), out)   -- the total leaves the job out
    assert.is_truthy(out:find('"invalid":1', 1, true), out)
  end)
  it("a limit of 1e999999 (the request it gives) likewise; sums up to 10^68 stay exact", function()
    local p = cfg('kfjob.TFJob{ worker = { replicas = 1, image = "i:1", limits = { mem = "1e999999" } } }')
    local code, out = util.kfjob("check", p)
    os.remove(p)
    assert.are.equal(1, code)
    assert.is_truthy(out:find("quantity '1e999999' is too large to total", 1, true), out)
    p = cfg('kfjob.TFJob{ worker = { replicas = 100000, image = "i:1", requests = { cpu = "1e63" } } }')
    code, out = util.kfjob("check", p, "-f", "json")
    os.remove(p)
    assert.are.equal(0, code, out)
    assert.is_truthy(out:find('"cpuRequest":"100e66"', 1, true), out)   -- 10^5 * 10^63, canonical
  end)
end)

describe("integral numbers above 2^53 as quantities, on every Lua version", function()
  -- 2^60 is a float on Lua 5.3/5.4 and a double on 5.1/LuaJIT: the same
  -- exact integer either way (Kubernetes reads "1152921504606846976").
  local cases = {
    { 2^60, "1152921504606846976" }, { 2^60 + 2^8, "1152921504606847232" },
    { 2^53 + 2, "9007199254740994" }, { 2^62, "4611686018427387904" }, { 1e15, "1000000000000000" },
  }
  for _, c in ipairs(cases) do
    it(c[2], function()
      local j = kfjob.TFJob{ worker = { replicas = 1, requests = { cpu = c[1] }, limits = { mem = c[1] } } }
      assert.are.equal(c[2], j.worker.requests.cpu)
      assert.are.equal(c[2], j.worker.limits.mem)
      assert.is_truthy(j:to_json():find('"' .. c[2] .. '"', 1, true))
    end)
  end
end)
