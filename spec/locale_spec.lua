-- Numbers never follow the process locale (issue 18, class 4): after
-- os.setlocale("de_DE.UTF-8", "numeric") the C library writes and reads
-- "0,5", but kfjob's quantities, JSON, TaskTemplates, manifests and
-- templates stay "0.5".  kfjob formats and parses under a "C" LC_NUMERIC
-- locale object (newlocale/uselocale), as protobuf's json_format and
-- lua-cjson (its locale-independent fpconv) do.
--
-- Needs a locale whose decimal point is a comma (scripts/setup.sh generates
-- de_DE.UTF-8); without one the specs are pending with a message.

local kfjob = require "kfjob"
local template = require "kfjob.template"

local COMMA_LOCALES = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8" }

describe("kfjob under a locale with a decimal comma", function()
  local saved, comma

  setup(function()
    saved = os.setlocale(nil, "numeric")
    for _, l in ipairs(COMMA_LOCALES) do
      if os.setlocale(l, "numeric") and ("%.1f"):format(0.5) == "0,5" then comma = l break end
    end
  end)

  teardown(function()
    os.setlocale(saved or "C", "numeric")
  end)

  local function need()
    if not comma then
      pending("no locale with a decimal comma (de_DE.UTF-8): run scripts/setup.sh "
        .. "or localedef -i de_DE -f UTF-8 de_DE.UTF-8")
      return false
    end
    return true
  end

  it("formats fractional quantities with a point", function()
    if not need() then return end
    local job = kfjob.TFJob{ worker = { replicas = 1, requests = { cpu = 0.5, mem = 1.25 } } }
    assert.equal("0.5", job.worker.requests.cpu)
    assert.equal("1.25", job.worker.requests.mem)
    assert.equal(job, assert(kfjob.decode("tensorflow", job:encode())))
    assert.equal(job, assert(kfjob.from_json("tensorflow", job:to_json())))
    assert.equal(job, (assert(kfjob.decode_task_template(job:task_template()))))
    assert.equal(job, (assert(kfjob.decode_task_template(job:task_template{ format = "json" }))))
  end)

  it("writes JSON and YAML numbers with a point and reads them back", function()
    if not need() then return end
    local job = kfjob.TFJob{ worker = { replicas = 1, requests = { cpu = 0.25 } } }
    local y = job:manifest{ name = "x", image = "img:1.5", format = "yaml" }
    assert.truthy(y:find("cpu: \"0.25\"", 1, true), y)
    -- a JSON real where an integer is expected: 2.0 reads as 2, 2.5 is refused
    assert.equal(2, assert(kfjob.from_json("tensorflow",
      '{"workerReplicas":{"replicas":2.0}}')).worker.replicas)
    local _, msg = kfjob.from_json("tensorflow", '{"workerReplicas":{"replicas":"2.5"}}')
    assert.matches("2.5", msg, 1, true)
    -- Struct numbers in a TaskTemplate's JSON custom
    local t = job:task_template{ format = "json" }
    assert.falsy(t:find("%d,%d"), t)
  end)

  it("renders template numbers with a point", function()
    if not need() then return end
    assert.equal("lr-0.001", template.render("lr-${lr}", { lr = 0.001 }))
    assert.equal("1.5", template.render("${x}", { x = 1.5 }))
  end)
end)
