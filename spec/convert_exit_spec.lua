-- kfjob convert's exit status comes from the class of the failure the host
-- API gives (kfjob_host_not_input), never from the words of its message:
-- input that is not what convert reads at all (text with a NUL byte, a
-- document whose kind or apiVersion kfjob refuses) exits 2, as a misspelt
-- option does (docs/IMPORT.md); other invalid input, a limit exceeded or
-- a config's own error exits 1 (docs/CLI.md: 1 invalid config or jobs, or
-- a limit exceeded; 2 usage or I/O error) -- even when its message has the
-- words of the first class.
local util = require "util"

if not util.cli_ok then
  describe("kfjob convert: exit status by class", function() pending(util.cli_why()) end)
  return
end

local TMP = util.tmpdir()
local put = util.writer(TMP)   -- put(name, text): a file in TMP, its path

local PT = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: a}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template: {spec: {containers: [{name: pytorch, image: i}]}}
]]

-- Runs convert of `text` (in a file `name`) with and without -f lua (the
-- generator's first pass reads the input as convert does); both exit
-- `want`, the message has `says`.
local function exits(want, name, text, says, extra)
  local path = put(name, text)
  for _, args in ipairs({ {}, { "-f", "lua" } }) do
    local argv = { "convert", path }
    for _, a in ipairs(args) do argv[#argv + 1] = a end
    for _, a in ipairs(extra or {}) do argv[#argv + 1] = a end
    local code, out, err = util.kfjob(table.unpack(argv))
    assert.equal(want, code, name .. " " .. table.concat(args, " ") .. ": " .. err)
    assert.equal("", out)
    assert.matches(says, err, 1, true)
  end
end

describe("kfjob convert: input that is not what it reads exits 2", function()
  it("a NUL byte in a manifest or a data config", function()
    exits(2, "nul.yaml", "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\0\n", "a NUL byte at offset 44")
    exits(2, "nuld.yaml", "kind: PyTorchJob\nworker: {replicas: 2}\0\n", "a NUL byte at offset 38")
  end)

  it("a document whose kind or apiVersion kfjob refuses", function()
    exits(2, "typo.yaml", PT .. "---\napiVersion: kubeflow.org/v1\nkind: PytorchJob\nmetadata: {name: x}\n",
          "did you mean 'PyTorchJob'?")
    exits(2, "v2.yaml", PT .. "---\napiVersion: kubeflow.org/v2\nkind: PyTorchJob\nmetadata: {name: x}\n",
          "not an apiVersion kfjob reads it in")
    exits(2, "foo.yaml", PT .. "---\napiVersion: kubeflow.org/v1\nkind: Foo\nmetadata: {name: x}\n",
          "kind Foo: not a kind kfjob reads of kubeflow.org")
    exits(2, "nokind.yaml", PT .. "---\napiVersion: kubeflow.org/v1\nmetadata: {name: x}\n",
          "apiVersion kubeflow.org/v1 without a kind")
    exits(2, "noapi.yaml", PT .. "---\nkind: PytorchJob\nmetadata: {name: x}\n",
          "kind PytorchJob without an apiVersion")
  end)
end)

describe("kfjob convert: other failures exit 1, whatever their words", function()
  it("malformed YAML, another group's kind alone, a manifest without its spec", function()
    exits(1, "bad.yaml", "apiVersion: kubeflow.org/v1\nkind: [\n", "kfjob.from_manifests: ")
    -- a data config named .json in any case must be JSON (.Json too; it was read as YAML)
    for _, name in ipairs({ "d.json", "d.JSON", "d.Json" }) do
      exits(1, name, "kind: TFJob\nworker: {replicas: 2, image: i}\n",
            name .. ":1: invalid token near 'kind' (column 4)")
    end
    exits(1, "svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n",
          "not a kind kfjob reads (supported: ")
    exits(1, "nospec.yaml", "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: a}\n",
          "spec: required")
  end)

  it("the memory limit", function()
    exits(1, "mem.yaml", PT, "memory limit exceeded", { "--memory-limit", "2K" })
  end)

  -- each message below holds the words of a refused kind or a NUL byte:
  -- matched by its words, each exited 2
  it("a value or key whose words are a refusal's", function()
    exits(1, "label.yaml", (PT:gsub("{name: a}", '{name: a, labels: {x: "a NUL byte at offset 3"}}')),
          "invalid label value 'a NUL byte at offset 3'")
    exits(1, "key.yaml", 'kind: PyTorchJob\nmaster: {replicas: 1}\n"x without a kind": 1\n',
          "x without a kind: unknown field")
  end)

  it("a config script's own error", function()
    local p = put("words.lua", 'error("kind PytorchJob: not a kind kfjob reads (did you mean PyTorchJob?)")\n')
    local code, out, err = util.kfjob("convert", p)
    assert.equal(1, code, err)
    assert.equal("", out)
    assert.matches("words.lua:1: kind PytorchJob: not a kind kfjob reads (did you mean", err, 1, true)
  end)
end)

teardown(function() os.execute("rm -rf " .. util.quote(TMP)) end)
