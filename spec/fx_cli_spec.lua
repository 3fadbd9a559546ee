-- Faults black-box testers found in the CLI, the schema and the rules'
-- messages (fx_cli), one describe per fault; the expected values come from
-- the SPEC and Kubernetes / operator semantics.
local kfjob = require "kfjob"
local util = require "util"

local PY = "env -u LD_PRELOAD python3"

-- python3-jsonschema's verdict on a document (JSON text) under a schema
-- (JSON text): true/false, or nil when jsonschema is not installed.
local function jsonschema_valid(schema, doc)
  if not util.sh_ok(PY .. " -c 'import jsonschema' >/dev/null 2>&1") then return nil end
  local s, d = util.tmp(schema, ".json"), util.tmp(doc, ".json")
  local ok = util.sh_ok(PY .. " -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])),"
                        .. " json.load(open(sys.argv[1])))' " .. s .. " " .. d .. " >/dev/null 2>&1")
  os.remove(s); os.remove(d)
  return ok
end

describe("schema: nproc_per_node's words (R10)", function()
  local doc = '{"kind":"Elastic","nnodes":2,"nproc_per_node":"auto","container":{"image":"i"}}'

  it("the schema takes auto, cpu and gpu as check --target does", function()
    for _, target in ipairs({ false, "trainer-2.3", "operator" }) do
      local text = target and kfjob.schema("Elastic", { target = target }) or kfjob.schema()
      local node = kfjob.read_yaml(text)["$defs"].Elastic.properties.nproc_per_node
      assert.is_table(node.anyOf)
      assert.are.same({ "auto", "cpu", "gpu" }, node.anyOf[2].enum)
      assert.are.equal(1, node.anyOf[1].minimum)
      local v = jsonschema_valid(text, doc)
      if v ~= nil then assert.is_true(v) end
    end
  end)

  it("explain and kfjob.fields give the words", function()
    assert.are.same({ "auto", "cpu", "gpu" }, kfjob.fields("Elastic").nproc_per_node.values)
    assert.are.same({ "auto", "cpu", "gpu" }, kfjob.fields("PyTorchJob").nproc_per_node.values)
    if not util.cli_ok then return end
    local code, out = util.kfjob("explain", "Elastic.nproc_per_node")
    assert.are.equal(0, code)
    assert.matches("nproc_per_node <integer or one of auto, cpu, gpu>", out, 1, true)
  end)

  it("check --target accepts the document the schema accepts", function()
    if not util.cli_ok then return end
    local path = util.write(util.tmpdir() .. "/job.json", doc)
    for _, target in ipairs({ "trainer-2.3", "operator" }) do
      local code, _, err = util.kfjob("check", path, "--target", target)
      assert.are.equal(0, code, err)
    end
    os.remove(path)
  end)
end)

describe("schema: a top-level \"$schema\" key (README: for editors)", function()
  local job = '{"$schema":"x.json","kind":"PyTorchJob","worker":{"replicas":1}}'

  it("the schema takes it beside kind or jobs, a string, at the top only", function()
    local all, one = kfjob.schema(), kfjob.schema("PyTorchJob")
    local node = kfjob.read_yaml(one)["$defs"].PyTorchJob.properties["$schema"]
    assert.are.equal("string", node.type)
    local v = jsonschema_valid(all, job)
    if v == nil then return end
    assert.is_true(v)
    assert.is_true(jsonschema_valid(one, job))
    assert.is_true(jsonschema_valid(all, '{"$schema":"x.json","jobs":{"a":{"kind":"PyTorchJob"}}}'))
    assert.is_false(jsonschema_valid(all, '{"$schema":3,"kind":"PyTorchJob"}'))
    -- the reader refuses it in a list item or a jobs entry: so does the schema
    assert.is_false(jsonschema_valid(all, "[" .. job .. "]"))
    assert.is_false(jsonschema_valid(all, '{"jobs":{"a":' .. job .. '}}'))
  end)

  it("the reader takes a string and refuses another value, naming $schema", function()
    if not util.cli_ok then return end
    local dir = util.tmpdir()
    local code, _, err = util.kfjob("render", util.write(dir .. "/a.json", job))
    assert.are.equal(0, code, err)
    code, _, err = util.kfjob("check", util.write(dir .. "/b.json", '{"$schema":3,"kind":"PyTorchJob"}'))
    assert.are.equal(1, code)
    assert.matches("b.json:1: $schema: expected a string", err, 1, true)
  end)
end)
