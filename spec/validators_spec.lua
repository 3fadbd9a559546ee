-- Issue 40: a row's validator is row data that reaches `kfjob schema`
-- (the JSON Schema `pattern` and `maxLength` of Kubernetes' own rules),
-- `kfjob explain` and `kfjob meta`.  The samples and what Kubernetes does
-- with them come from k8s.io/apimachinery/pkg/util/validation/validation.go
-- (IsDNS1123Label, IsDNS1123Subdomain, IsQualifiedName, IsValidLabelValue),
-- not from kfjob's output: each is checked against the emitted pattern (by
-- python3's `re`, anchored as ECMA-262 anchors `$`: at the very end) and
-- against kfjob's own constructor, which must agree.
local kfjob = require "kfjob"
local explain = require "kfjob.explain"
local json_string = require("kfjob.textutil").json_string
local util = require "spec.util"

local PY = "env -u LD_PRELOAD /usr/bin/python3"

-- name, where in the PyTorchJob document, and { value, Kubernetes takes it }
local CASES = {
  { "dns1123_label (namespace)", { "properties", "namespace" }, {
    { "a", true }, { "abc-1", true }, { "0abc", true }, { ("a"):rep(63), true },
    { "", false }, { "A", false }, { "-a", false }, { "a-", false }, { "a.b", false },
    { "a_b", false }, { ("a"):rep(64), false }, { "a\n", false }, { "a b", false } } },
  { "dns1123_subdomain (scheduling.queue)", { "properties", "scheduling", "properties", "queue" }, {
    { "a", true }, { "a.b", true }, { "a-b.c-d", true }, { "0.1", true },
    -- a subdomain, but Kueue reads it from a label value (IsValidLabelValue: 63)
    { ("a"):rep(31) .. "." .. ("b"):rep(31), true }, { ("a"):rep(32) .. "." .. ("b"):rep(31), false },
    { ("a"):rep(63) .. "." .. ("b"):rep(63) .. "." .. ("c"):rep(63) .. "." .. ("d"):rep(61), false },
    { "", false }, { "a..b", false }, { ".a", false }, { "a.", false }, { "a.-b", false },
    { "A.b", false }, { "a_b", false }, { ("a"):rep(254), false }, { "a.b\n", false } } },
  { "label key (labels' keys)", { "properties", "labels", "propertyNames" }, {
    -- (lengths: the prefix's 253 and the name's 63 are no single maxLength,
    -- so only the shapes are the pattern's)
    { "app", true }, { "A", true }, { "example.com/app", true }, { "a/B_c.d-e", true },
    { "kueue.x-k8s.io/queue-name", true }, { "x/" .. ("n"):rep(63), true },
    { "", false }, { "/a", false }, { "a/", false }, { "-a", false }, { "a_", false },
    { "a..b/c", false }, { "Example.com/a", false }, { "a/b/c", false }, { "a b", false },
    { "a\n", false } } },
  { "label value (labels' values)", { "properties", "labels", "additionalProperties" }, {
    { "", true }, { "a", true }, { "A-b_c.d", true }, { ("v"):rep(63), true },
    { "-a", false }, { "a-", false }, { "a/b", false }, { ("v"):rep(64), false },
    { "a b", false }, { "a\n", false } } },
}

-- What the emitted schema node says of each value: "1" (takes it) or "0".
local function schema_says(node_path, values)
  local f = os.tmpname()
  local h = assert(io.open(f, "w"))
  h:write(kfjob.schema("PyTorchJob"))
  h:close()
  local keys, vals = {}, {}
  for _, k in ipairs(node_path) do keys[#keys + 1] = json_string(k) end
  for _, v in ipairs(values) do vals[#vals + 1] = json_string(v) end
  local script = ([[
import json, re, sys
doc = json.load(open(%s))
node = doc["$defs"]["PyTorchJob"]
for k in [%s]:
    node = node[k]
pat = node["pattern"]
assert pat.startswith("^") and pat.endswith("$"), pat
rx = re.compile(pat[:-1] + r"\Z")   # ECMA-262's $ (no multiline): the end alone
out = []
for v in [%s]:
    ok = rx.search(v) is not None and len(v) <= node.get("maxLength", len(v))
    out.append("1" if ok else "0")
print("".join(out))
]]):format(json_string(f), table.concat(keys, ", "), table.concat(vals, ", "))
  local s = os.tmpname()
  h = assert(io.open(s, "w"))
  h:write(script)
  h:close()
  local p = io.popen(PY .. " " .. util.quote(s) .. " 2>&1")
  local out = p:read("*a")
  p:close()
  os.remove(f)
  os.remove(s)
  return (out:gsub("%s+$", ""))
end

-- What kfjob's constructor does with the value in the same place.
local function kfjob_takes(name, v)
  local spec = { master = { replicas = 1 }, worker = { replicas = 1 } }
  if name:find("^dns1123_label") then spec.namespace = v
  elseif name:find("^dns1123_subdomain") then spec.scheduling = { queue = v }
  elseif name:find("^label key") then
    -- the Kueue labels scheduling writes are its rows' alone (SPEC §13, R27):
    -- a valid key kfjob reserves, checked beside one it does not
    local reserved = { ["kueue.x-k8s.io/queue-name"] = true, ["kueue.x-k8s.io/priority-class"] = true,
                       ["kueue.x-k8s.io/max-exec-time-seconds"] = true }
    if reserved[v] then v = v:gsub("kueue%.x%-k8s%.io/", "kueue.x-k8s.io/x-") end
    spec.labels = { [v] = "x" }
  else spec.labels = { app = v } end
  return (pcall(kfjob.PyTorchJob, spec))
end

describe("a row's validator in kfjob schema (Kubernetes' patterns)", function()
  local have_py = util.sh_ok(PY .. " -c 'import re, json'")
  for _, case in ipairs(CASES) do
    it(case[1] .. ": the pattern takes what Kubernetes takes and refuses the rest", function()
      if not have_py then return pending("no python3") end
      local values, want = {}, {}
      for i, c in ipairs(case[3]) do
        values[i] = c[1]
        want[i] = c[2] and "1" or "0"
      end
      assert.equal(table.concat(want), schema_says(case[2], values))
    end)
    it(case[1] .. ": kfjob's own check agrees", function()
      for _, c in ipairs(case[3]) do
        local long_key = case[1]:find("^label key") and #c[1] > 63
        if not long_key then
          assert.equal(c[2], kfjob_takes(case[1], c[1]), ("%q"):format(c[1]))
        end
      end
    end)
  end
  it("kfjob.fields names each validator with its pattern and Kubernetes' largest length", function()
    local rows = kfjob.fields("PyTorchJob")
    assert.same({ name = "dns1123_label", pattern = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
                  max_length = 63, what = rows.namespace.check_info.what }, rows.namespace.check_info)
    assert.equal("dns1123_label", rows.namespace.check)
    assert.equal(63, rows.scheduling.fields.queue.check_info.max_length)   -- a label value
    assert.equal("label_key", rows.labels.key_check.name)
    assert.is_nil(rows.labels.key_check.max_length)   -- prefix 253 and name 63: no one number
    assert.equal(63, rows.labels.value_check.max_length)
    -- IsQualifiedName of the key lowered: no expression of Kubernetes' own
    assert.equal("annotation_key", rows.annotations.key_check.name)
    assert.is_nil(rows.annotations.key_check.pattern)
  end)
end)

describe("a row's validator in explain and meta", function()
  it("explain gives the format and its pattern", function()
    local out = explain("PyTorchJob.namespace")
    assert.matches("FORMAT:   a DNS-1123 label", out, 1, true)
    assert.matches("pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", out, 1, true)
    out = explain("PyTorchJob.labels")
    assert.matches("KEYS:     a label key", out, 1, true)
    assert.matches("VALUES:   a label value", out, 1, true)
  end)
  it("meta names it in the field's line", function()
    local m = kfjob.meta()
    local function line(start)
      return m:match("\n(" .. start:gsub("%p", "%%%0") .. "[^\n]*)")
    end
    assert.matches(" Format: dns1123_label.", line("---@field namespace? string "), 1, true)
    assert.matches(" Format: dns1123_subdomain.", line("---@field queue? string Kueue "), 1, true)
    assert.matches(" Keys: label_key. Values: label_value.", line("---@field labels? table<string, string> The resource's"), 1, true)
  end)
end)

describe("one label-key checker: a pod template's keys as the API server checks them", function()
  -- validateTolerations (ValidateLabelName) and the nodeSelector
  -- (ValidateLabels) take IsQualifiedName keys, whose prefix is a DNS-1123
  -- subdomain: "a..b" and "a.-b" are not (an empty label, a label ending in '-')
  local function with_template(spec)
    return pcall(kfjob.PyTorchJob, { master = { replicas = 1 },
                                     worker = { replicas = 1, pod_template = { spec = spec } } })
  end
  it("refuses a prefix that is no DNS-1123 subdomain", function()
    for _, k in ipairs({ "a..b/key", "a.-b/key", "-a.b/key" }) do
      local ok, err = with_template({ tolerations = { { key = k, operator = "Exists" } } })
      assert.is_false(ok, k)
      assert.matches("tolerations[1].key", err, 1, true)
      ok, err = with_template({ nodeSelector = { [k] = "v" } })
      assert.is_false(ok, k)
      assert.matches("nodeSelector", err, 1, true)
    end
  end)
  it("takes what Kubernetes takes", function()
    for _, k in ipairs({ "example.com/key", "a.b-c.d/Key_1", "key" }) do
      assert.is_true((with_template({ tolerations = { { key = k, operator = "Exists" } } })), k)
      assert.is_true((with_template({ nodeSelector = { [k] = "v" } })), k)
    end
  end)
end)

describe("per-target values in meta", function()
  -- flyteidl plugins/common.proto RestartPolicy: Never, OnFailure, Always;
  -- mpi-operator validation.go validateReplicaSpec: Never, OnFailure;
  -- trainer trainjob_types.go has no restart policy (never)
  it("a group's restart_policy line gives each target's values", function()
    local m = kfjob.meta()
    local l = m:match("\n(%-%-%-@field restart_policy%? [^\n]*)")
    assert.matches(" Values by target (R13): flyte, flyte2: never, on_failure, always; "
                   .. "mpi-operator: never, on_failure; trainer-2.2, trainer-2.3, trainer-2.4: never; "
                   .. "elsewhere every value.", l, 1, true)
  end)
end)

describe("annotation keys as ValidateAnnotations takes them", function()
  -- apimachinery pkg/api/validation/objectmeta.go ValidateAnnotations:
  -- IsQualifiedName(strings.ToLower(k)), so a prefix may have capitals
  local MAN = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: x
  annotations:
    Example.COM/Key: "1"
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        metadata:
          annotations:
            Team.Example/Owner: me
        spec:
          containers:
          - name: pytorch
            image: i:1
]]
  it("a job's, a call's and a pod template's take a prefix with capitals", function()
    local j = kfjob.PyTorchJob{ master = { replicas = 1, pod_template = {
      metadata = { annotations = { ["Team.Example/Owner"] = "me" } } } },
      annotations = { ["Example.COM/Key"] = "1" } }
    local m = j:manifest{ name = "x", image = "i:1", annotations = { ["A.B/c"] = "y" } }
    assert.equal("1", m.metadata.annotations["Example.COM/Key"])
    assert.equal("y", m.metadata.annotations["A.B/c"])
  end)
  it("a manifest's read back", function()
    local j = assert(kfjob.from_manifest(MAN))
    assert.equal("1", j.annotations["Example.COM/Key"])
  end)
  it("still refuses what no casing makes a qualified name", function()
    for _, k in ipairs({ "Example..COM/Key", "-A.b/c", "A.b/", "a/b/c" }) do
      assert.is_false((pcall(kfjob.PyTorchJob, { master = { replicas = 1 }, annotations = { [k] = "1" } })), k)
    end
  end)
end)

describe("one reader of Kueue's labels (TaskTemplates and manifests)", function()
  -- kueue jobframework reads kueue.x-k8s.io/max-exec-time-seconds with Go's
  -- strconv, which takes no leading space: " 5" is no time limit to Kueue
  local function flyte2_template(max)
    local j = kfjob.PyTorchJob{ master = { replicas = 1 }, worker = { replicas = 1 },
                                scheduling = { queue = "q", max_exec_time = 5 } }
    local tt = j:task_template{ target = "flyte2", format = "json" }
    local out = tt:gsub('("kueue.x%-k8s.io/max%-exec%-time%-seconds":%s*)"5"', '%1"' .. max .. '"')
    return out
  end
  it("a decoded TaskTemplate's max-exec-time with a leading space is an error naming the label", function()
    -- a pod template cannot hold Kueue's labels (Flyte 2 copies them onto the CR)
    local j, err = kfjob.decode_task_template(flyte2_template(" 5"))
    assert.is_nil(j)
    assert.matches('pod_template.metadata.labels["kueue.x-k8s.io/max-exec-time-seconds"]', err, 1, true)
  end)
  it("kfjob's own writing reads back", function()
    local j = assert(kfjob.decode_task_template(flyte2_template("5")))
    assert.equal(5, j:spec().scheduling.max_exec_time)
    assert.equal("q", j:spec().scheduling.queue)
  end)
end)
