-- Specs for kfjob.template (SPEC §5): render, expand, merge, matrix,
-- dns_name and variants, against the real core module.

local kfjob = require "kfjob"
local template = require "kfjob.template"

-- Every combination of an iterator, collected.
local function collect(it)
  local out = {}
  for p in it do out[#out + 1] = p end
  return out
end

-- The error message of f(...), without "file:line: ".
local error_of = require("util").error_of

-- name, job, params triples of a variants iterator.
local function all_variants(...)
  local out = {}
  for name, job, params in template.variants(...) do
    out[#out + 1] = { name = name, job = job, params = params }
  end
  return out
end

local function names_of(vs)
  local out = {}
  for i, v in ipairs(vs) do out[i] = v.name end
  return out
end

describe("kfjob.template", function()

  it("is kfjob.template and exports its functions", function()
    assert.equal(template, kfjob.template)
    for _, f in ipairs{ "render", "expand", "matrix", "variants", "merge", "dns_name" } do
      assert.is_function(template[f], f)
    end
    assert.equal(50, template.MAX_NAME)
  end)

  describe("render()", function()
    it("substitutes ${name}", function()
      assert.equal("bert-v1", template.render("bert-${tag}", { tag = "v1" }))
      assert.equal("a1b2", template.render("a${x}b${y}", { x = 1, y = 2 }))
    end)

    it("follows dotted names into nested tables", function()
      local vars = { worker = { replicas = 4, requests = { gpu = "2" } } }
      assert.equal("w4-g2", template.render("w${worker.replicas}-g${worker.requests.gpu}", vars))
    end)

    it("finds keys that contain dots, and array elements", function()
      assert.equal("8", template.render("${worker.replicas}", { ["worker.replicas"] = 8 }))
      assert.equal("b", template.render("${cmd.2}", { cmd = { "a", "b" } }))
      assert.equal("x", template.render("${a.b.c}", { a = { ["b.c"] = "x" } }))
    end)

    it("prints integral numbers without .0 and others in shortest form", function()
      assert.equal("2", template.render("${n}", { n = 2.0 }))
      assert.equal("-3", template.render("${n}", { n = -3.0 }))
      assert.equal("0.5", template.render("${n}", { n = 0.5 }))
      assert.equal("0.1", template.render("${n}", { n = 0.1 }))
      assert.equal("1e+20", template.render("${n}", { n = 1e20 }))
      assert.equal("true-false", template.render("${a}-${b}", { a = true, b = false }))
    end)

    it("uses ${name:-default} when the variable is missing or empty", function()
      assert.equal("dev", template.render("${tag:-dev}", {}))
      assert.equal("dev", template.render("${tag:-dev}", { tag = "" }))
      assert.equal("v2", template.render("${tag:-dev}", { tag = "v2" }))
      assert.equal("0", template.render("${n:-5}", { n = 0 }))
      assert.equal("x--y", template.render("x-${tag:-}-y"))
      assert.equal("a:b c", template.render("${v:-a:b c}"))
      assert.equal("2", template.render("${w.replicas:-2}", { w = {} }))
    end)

    it("reads $$ as a literal $ and keeps a lone $", function()
      assert.equal("$5", template.render("$$5"))
      assert.equal("${x}", template.render("$${x}", {}))
      assert.equal("$HOME/a-1", template.render("$HOME/a-${n}", { n = 1 }))
      assert.equal("cost: $", template.render("cost: $"))
      assert.equal("$$", template.render("$$$$"))
    end)

    it("returns strings without placeholders unchanged", function()
      assert.equal("plain", template.render("plain"))
      assert.equal("", template.render(""))
    end)

    it("names a missing variable and its position", function()
      assert.has_error(function() template.render("bert-${tag}", {}) end,
        "kfjob.template.render: missing variable 'tag' at position 6 in \"bert-${tag}\"")
      assert.has_error(function() template.render("${a}${worker.replicas}", { a = 1, worker = {} }) end,
        "kfjob.template.render: missing variable 'worker.replicas' at position 5 in \"${a}${worker.replicas}\"")
      assert.has_error(function() template.render("${x}") end,
        "kfjob.template.render: missing variable 'x' at position 1 in \"${x}\"")
    end)

    it("names a malformed placeholder and its position", function()
      assert.has_error(function() template.render("a${}") end,
        "kfjob.template.render: malformed placeholder '${}' at position 2 in \"a${}\"")
      assert.has_error(function() template.render("${a b}") end,
        "kfjob.template.render: malformed placeholder '${a b}' at position 1 in \"${a b}\"")
      assert.has_error(function() template.render("${1a}") end,
        "kfjob.template.render: malformed placeholder '${1a}' at position 1 in \"${1a}\"")
      assert.has_error(function() template.render("${a..b}") end,
        "kfjob.template.render: malformed placeholder '${a..b}' at position 1 in \"${a..b}\"")
      assert.has_error(function() template.render("${tag-dev}") end,
        "kfjob.template.render: malformed placeholder '${tag-dev}' at position 1 in \"${tag-dev}\"")
      assert.has_error(function() template.render("${a:-${b}}") end,
        "kfjob.template.render: malformed placeholder '${a:-${b}' at position 1 in \"${a:-${b}}\"")
      assert.has_error(function() template.render("img:${tag") end,
        "kfjob.template.render: unterminated placeholder \"${tag\" at position 5 in \"img:${tag\"")
    end)

    it("rejects variables that are not strings, numbers or booleans", function()
      assert.has_error(function() template.render("w${worker}", { worker = { replicas = 2 } }) end,
        "kfjob.template.render: variable 'worker' at position 2 in \"w${worker}\" is a table"
        .. " (string, number or boolean expected)")
    end)

    it("checks its arguments", function()
      assert.has_error(function() template.render(nil) end,
        "bad argument #1 to 'kfjob.template.render' (string expected, got nil)")
      assert.has_error(function() template.render("x", "y") end,
        "bad argument #2 to 'kfjob.template.render' (table expected, got string)")
    end)

    it("raises at the caller's line", function()
      local ok, e = pcall(function() template.render("${nope}") end)
      assert.is_false(ok)
      assert.matches("template_spec%.lua:%d+: kfjob%.template%.render: missing variable 'nope'", e)
    end)
  end)

  describe("expand()", function()
    it("renders every string of a nested table, keys untouched", function()
      local tree = {
        worker = { image = "repo/bert:${tag}", replicas = 2, command = { "run", "--lr=${lr}" } },
        ["${tag}"] = "key stays",
        flag = true,
      }
      local out = template.expand(tree, { tag = "v1", lr = 0.001 })
      assert.same({
        worker = { image = "repo/bert:v1", replicas = 2, command = { "run", "--lr=0.001" } },
        ["${tag}"] = "key stays",
        flag = true,
      }, out)
    end)

    it("returns a new table and leaves the input alone", function()
      local inner = { image = "a:${t}" }
      local tree = { worker = inner, list = { 1, 2 } }
      local out = template.expand(tree, { t = "x" })
      assert.are_not.equal(tree, out)
      assert.are_not.equal(inner, out.worker)
      assert.are_not.equal(tree.list, out.list)
      assert.equal("a:${t}", inner.image)
      out.list[1] = 99
      assert.equal(1, tree.list[1])
    end)

    it("keeps the type of a value that is a whole string", function()
      local out = template.expand({ replicas = "${n}", on = "${b}", cmd = "${c}", s = "${n}x" },
                                  { n = 4, b = false, c = { "a", "b" } })
      assert.equal(4, out.replicas)
      assert.equal(false, out.on)
      assert.same({ "a", "b" }, out.cmd)
      assert.equal("4x", out.s)
      assert.equal("3", template.expand({ n = "${n:-3}" }).n)
    end)

    it("copies a whole-string table value", function()
      local c = { "a" }
      local out = template.expand({ cmd = "${c}" }, { c = c })
      assert.are_not.equal(c, out.cmd)
    end)

    it("allows a table shared by two keys", function()
      local shared = { image = "${i}" }
      local out = template.expand({ a = shared, b = shared }, { i = "x" })
      assert.same({ a = { image = "x" }, b = { image = "x" } }, out)
    end)

    it("names the path of a failing string", function()
      assert.has_error(function()
        template.expand({ worker = { image = "img:${tag}" } }, {})
      end, "kfjob.template.expand: worker.image: missing variable 'tag' at position 5 in \"img:${tag}\"")
      assert.has_error(function()
        template.expand({ worker = { command = { "a", "${" } } }, {})
      end, "kfjob.template.expand: worker.command[2]: unterminated placeholder \"${\" at position 1 in \"${\"")
    end)

    it("detects and reports cycles", function()
      local t = { a = { b = {} } }
      t.a.b.c = t.a
      assert.has_error(function() template.expand(t, {}) end,
        "kfjob.template.expand: cycle at a.b.c")
      local self = {}
      self.me = self
      assert.has_error(function() template.expand(self) end,
        "kfjob.template.expand: cycle at me")
    end)

    it("expands a single string or returns other values", function()
      assert.equal("v1", template.expand("${t}", { t = "v1" }))
      assert.equal(5, template.expand(5))
    end)
  end)

  describe("merge()", function()
    it("merges deeply with b winning", function()
      local a = { worker = { replicas = 2, image = "a", requests = { cpu = "1" } }, slots = 1 }
      local b = { worker = { replicas = 4, requests = { gpu = 1 } }, run_policy = { backoff_limit = 3 } }
      assert.same({
        worker = { replicas = 4, image = "a", requests = { cpu = "1", gpu = 1 } },
        slots = 1,
        run_policy = { backoff_limit = 3 },
      }, template.merge(a, b))
    end)

    it("replaces arrays instead of merging them", function()
      assert.same({ command = { "c" } },
                  template.merge({ command = { "a", "b" } }, { command = { "c" } }))
      assert.same({ x = { k = 1 } }, template.merge({ x = { 1, 2 } }, { x = { k = 1 } }))
      assert.same({ x = { 1 } }, template.merge({ x = { k = 1 } }, { x = { 1 } }))
    end)

    it("lets a scalar replace a table and a table replace a scalar", function()
      assert.same({ a = 1 }, template.merge({ a = { b = 1 } }, { a = 1 }))
      assert.same({ a = { b = 1 } }, template.merge({ a = 1 }, { a = { b = 1 } }))
    end)

    it("leaves its inputs untouched and shares nothing with them", function()
      local a = { w = { r = 1 }, l = { 1 } }
      local b = { w = { i = "x" }, m = { k = { 1 } } }
      local out = template.merge(a, b)
      assert.same({ w = { r = 1 }, l = { 1 } }, a)
      assert.same({ w = { i = "x" }, m = { k = { 1 } } }, b)
      assert.are_not.equal(a.w, out.w)
      assert.are_not.equal(a.l, out.l)
      assert.are_not.equal(b.m, out.m)
      assert.are_not.equal(b.m.k, out.m.k)
    end)

    it("takes nil for an empty table", function()
      assert.same({ a = 1 }, template.merge(nil, { a = 1 }))
      assert.same({ a = 1 }, template.merge({ a = 1 }))
      assert.same({}, template.merge())
    end)

    it("reports cycles and bad arguments", function()
      local c = {}
      c.c = c
      assert.has_error(function() template.merge({}, { x = c }) end,
        "kfjob.template.merge: cycle in argument #2 at x.c")
      assert.has_error(function() template.merge(c, {}) end,
        "kfjob.template.merge: cycle in argument #1 at c")
      assert.has_error(function() template.merge(1, {}) end,
        "bad argument #1 to 'kfjob.template.merge' (table expected, got number)")
      assert.has_error(function() template.merge({}, "x") end,
        "bad argument #2 to 'kfjob.template.merge' (table expected, got string)")
    end)
  end)

  describe("matrix()", function()
    it("iterates axes sorted by name, the first slowest, values in order", function()
      assert.same({
        { gpu = 2, image = "b", replicas = 8 },
        { gpu = 2, image = "b", replicas = 2 },
        { gpu = 2, image = "a", replicas = 8 },
        { gpu = 2, image = "a", replicas = 2 },
        { gpu = 1, image = "b", replicas = 8 },
        { gpu = 1, image = "b", replicas = 2 },
        { gpu = 1, image = "a", replicas = 8 },
        { gpu = 1, image = "a", replicas = 2 },
      }, collect(template.matrix{ replicas = { 8, 2 }, image = { "b", "a" }, gpu = { 2, 1 } }))
    end)

    it("orders dotted axis names like any string", function()
      local out = collect(template.matrix{ ["worker.replicas"] = { 1, 2 }, tag = { "x" } })
      assert.same({ { tag = "x", ["worker.replicas"] = 1 }, { tag = "x", ["worker.replicas"] = 2 } }, out)
    end)

    it("returns a new table for every combination", function()
      local it = template.matrix{ a = { 1, 2 } }
      local p1, p2 = it(), it()
      assert.are_not.equal(p1, p2)
      assert.is_nil(it())
      assert.is_nil(it())
    end)

    it("is lazy", function()
      local axes = {}
      for i = 1, 12 do axes["a" .. i] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 } end
      local it = template.matrix(axes)     -- 10^12 combinations
      local first, second = it(), it()
      assert.equal(1, first.a9)
      assert.equal(2, second.a9)           -- a9 sorts last: it varies fastest
    end)

    it("excludes combinations matching every key of an entry", function()
      local out = collect(template.matrix{
        os = { "linux", "mac" }, v = { 1, 2, 3 },
        exclude = { { os = "mac", v = 1 }, { v = 3 } },
      })
      assert.same({ { os = "linux", v = 1 }, { os = "linux", v = 2 }, { os = "mac", v = 2 } }, out)
    end)

    it("compares table values deeply", function()
      local out = collect(template.matrix{
        res = { { cpu = 1 }, { cpu = 2 } },
        exclude = { { res = { cpu = 1 } } },
      })
      assert.same({ { res = { cpu = 2 } } }, out)
    end)

    it("follows GitHub Actions for include", function()
      -- the example of the GitHub Actions documentation
      local out = collect(template.matrix{
        fruit = { "apple", "pear" },
        animal = { "cat", "dog" },
        include = {
          { color = "green" },
          { color = "pink", animal = "cat" },
          { fruit = "apple", shape = "circle" },
          { fruit = "banana" },
          { fruit = "banana", animal = "cat" },
        },
      })
      assert.same({
        { animal = "cat", fruit = "apple", color = "pink", shape = "circle" },
        { animal = "cat", fruit = "pear", color = "pink" },
        { animal = "dog", fruit = "apple", color = "green", shape = "circle" },
        { animal = "dog", fruit = "pear", color = "green" },
        { fruit = "banana" },
        { fruit = "banana", animal = "cat" },
      }, out)
    end)

    it("never lets include overwrite an axis value", function()
      local out = collect(template.matrix{
        v = { 1, 2 },
        include = { { v = 1, extra = "x" }, { v = 3, extra = "y" } },
      })
      assert.same({ { v = 1, extra = "x" }, { v = 2 }, { v = 3, extra = "y" } }, out)
    end)

    it("applies include after exclude", function()
      local out = collect(template.matrix{
        a = { 1, 2 }, b = { 1, 2 },
        exclude = { { a = 2, b = 2 } },
        include = { { a = 2, b = 2, note = "back" } },
      })
      assert.same({ { a = 1, b = 1 }, { a = 1, b = 2 }, { a = 2, b = 1 },
                    { a = 2, b = 2, note = "back" } }, out)
    end)

    it("yields the entries of an include-only matrix", function()
      local out = collect(template.matrix{ include = { { a = 1 }, { a = 2, b = 3 } } })
      assert.same({ { a = 1 }, { a = 2, b = 3 } }, out)
      assert.same({}, collect(template.matrix{}))
    end)

    it("snapshots its input", function()
      local axis = { 1, 2 }
      local it = template.matrix{ a = axis }
      axis[1] = 99
      assert.same({ a = 1 }, it())
    end)

    it("rejects empty and malformed axes", function()
      assert.has_error(function() template.matrix{ a = {} } end,
        "kfjob.template.matrix: axis 'a' is empty")
      assert.has_error(function() template.matrix{ a = 1 } end,
        "kfjob.template.matrix: axis 'a' must be a list of values, got number")
      assert.has_error(function() template.matrix{ a = { x = 1 } } end,
        "kfjob.template.matrix: axis 'a' must be a list of values")
      -- #{1, nil, 3} is 3 or 1 (both are borders; LuaJIT gives 1)
      assert.has_error(function() template.matrix{ a = { 1, nil, 3 } } end,
        "kfjob.template.matrix: axis 'a' must be a list of values "
        .. (#{ 1, nil, 3 } == 3 and "(nil at 2)" or "(key 3)"))
      assert.has_error(function() template.matrix{ a = { 1, 2, [4] = 4 } } end,
        "kfjob.template.matrix: axis 'a' must be a list of values "
        .. (#{ 1, 2, [4] = 4 } == 2 and "(key 4)" or "(nil at 3)"))
      assert.has_error(function() template.matrix{ { 1, 2 } } end,
        "kfjob.template.matrix: axis names must be non-empty strings, got 1")
      assert.has_error(function() template.matrix(nil) end,
        "bad argument #1 to 'kfjob.template.matrix' (table expected, got nil)")
    end)

    it("rejects malformed exclude and include", function()
      assert.has_error(function() template.matrix{ a = { 1 }, exclude = { { b = 1 } } } end,
        "kfjob.template.matrix: exclude[1]: 'b' is not an axis")
      assert.has_error(function() template.matrix{ arch = { 1 }, exclude = { { acrh = 1 } } } end,
        "kfjob.template.matrix: exclude[1]: 'acrh' is not an axis (did you mean 'arch'?)")
      assert.has_error(function() template.matrix{ a = { 1 }, include = { 5 } } end,
        "kfjob.template.matrix: include[1] must be a table, got number")
      assert.has_error(function() template.matrix{ a = { 1 }, include = { {} } } end,
        "kfjob.template.matrix: include[1] is empty")
      assert.has_error(function() template.matrix{ a = { 1 }, include = "x" } end,
        "kfjob.template.matrix: 'include' must be a list of tables, got string")
    end)
  end)

  describe("dns_name()", function()
    it("lowercases and replaces invalid characters", function()
      assert.equal("bert-large-w4", template.dns_name("BERT_large/w4"))
      assert.equal("ghcr-io-acme-bert-1-4-0", template.dns_name("ghcr.io/acme/bert:1.4.0"))
      assert.equal("a-b", template.dns_name("a---b"))
    end)

    it("starts with a letter and ends without '-'", function()
      assert.equal("v2-gpus", template.dns_name("2 GPUs"))
      assert.equal("x", template.dns_name("--x--"))
      assert.equal("v0", template.dns_name("_0_"))
    end)

    it("caps the length with a stable hash suffix", function()
      local long1 = string.rep("experiment-", 8) .. "a"
      local long2 = string.rep("experiment-", 8) .. "b"
      local n1, n2 = template.dns_name(long1), template.dns_name(long2)
      assert.equal(50, #n1)
      assert.equal(50, #n2)
      assert.are_not.equal(n1, n2)
      assert.equal(n1, template.dns_name(long1))
      assert.matches("^experiment%-experiment%-experiment%-experime%-%x%x%x%x%x%x%x%x$", n1)
      assert.equal("experiment-d1e6994c", template.dns_name(long1, 20))   -- no "-" before the hash
      assert.equal("short", template.dns_name("short", 10))
    end)

    it("rejects what has nothing to make a name of", function()
      assert.has_error(function() template.dns_name("--") end,
        "kfjob.template.dns_name: \"--\" has no letter or digit to make a name of")
      assert.has_error(function() template.dns_name("x", 64) end,
        "bad argument #2 to 'kfjob.template.dns_name' (integer from 10 to 63 expected, got 64)")
    end)
  end)

  describe("variants()", function()
    local base_table = {
      worker = { image = "repo/bert:${tag}", requests = { cpu = 8, mem = "32Gi" } },
    }

    it("applies dotted overrides to a job", function()
      local job = kfjob.PyTorchJob{ worker = { replicas = 1, image = "img:1" } }
      local vs = all_variants(job, { ["worker.replicas"] = { 2, 4, 8 } },
                              { name = "bert-w${worker.replicas}" })
      assert.same({ "bert-w2", "bert-w4", "bert-w8" }, names_of(vs))
      for i, r in ipairs{ 2, 4, 8 } do
        assert.equal(r, vs[i].job.worker.replicas)
        assert.equal("img:1", vs[i].job.worker.image)
        assert.equal(job:with{ ["worker.replicas"] = r }, vs[i].job)
        assert.same({ ["worker.replicas"] = r }, vs[i].params)
      end
      assert.equal(1, job.worker.replicas)          -- the base is untouched
    end)

    -- docs/API.md: opts.name reads "the variant's resolved fields such as
    -- ${worker.replicas}"; an Elastic job reads its worker count from nnodes
    -- (its spec has no worker.replicas: a black-box tester found it missing)
    it("names an Elastic job by the worker count its nnodes gives", function()
      local vs = all_variants(kfjob.Elastic{ nnodes = 2 }, { nnodes = { 2, "2:4" }, max_restarts = { 1 } },
                              { name = "el-w${worker.replicas}-r${max_restarts}" })
      assert.same({ "el-w2-r1", "el-w4-r1" }, names_of(vs))
      assert.equal(4, vs[2].job.worker.replicas)
    end)

    it("builds a constructor table with template variables", function()
      local vs = all_variants(base_table, {
        ["worker.replicas"] = { 2, 4 },
        tag = { "1.4", "1.5" },
      }, { kind = "PyTorchJob", name = "bert-${tag}-w${worker.replicas}" })
      assert.same({ "bert-1-4-w2", "bert-1-4-w4", "bert-1-5-w2", "bert-1-5-w4" }, names_of(vs))
      assert.equal("repo/bert:1.4", vs[1].job.worker.image)
      assert.equal("repo/bert:1.5", vs[4].job.worker.image)
      assert.equal(4, vs[4].job.worker.replicas)
      assert.equal("PyTorchJob", vs[1].job.kind)
      assert.equal("repo/bert:${tag}", base_table.worker.image)   -- untouched
      assert.is_nil(base_table.worker.replicas)
    end)

    it("overrides resources, merging table values", function()
      local vs = all_variants(kfjob.PyTorchJob{
        worker = { replicas = 2, requests = { cpu = 8 } },
      }, {
        ["worker.requests.gpu"] = { 1, 2 },
      }, { name = "g${worker.requests.gpu}" })
      assert.same({ "g1", "g2" }, names_of(vs))
      assert.same({ cpu = "8", gpu = "2" }, vs[2].job:spec().worker.requests)
      vs = all_variants(base_table, { ["worker.requests"] = { { gpu = 1 } }, tag = { "t" },
                                      ["worker.replicas"] = { 1 } },
                        { kind = "PyTorchJob", name = "x-${tag}" })
      assert.same({ cpu = "8", mem = "32Gi", gpu = "1" }, vs[1].job:spec().worker.requests)
    end)

    it("overrides fields of every job kind", function()
      local cases = {
        { kfjob.TFJob{ worker = { replicas = 2 } },
          { ["ps.replicas"] = { 1, 2 }, ["chief.replicas"] = { 1 } },
          function(job, p)
            assert.equal(p["ps.replicas"], job.ps.replicas)
            assert.equal(1, job.chief.replicas)
          end },
        { kfjob.PyTorchJob{ worker = { replicas = 1 } },
          { ["master.image"] = { "m:1", "m:2" }, ["run_policy.backoff_limit"] = { 3 } },
          function(job, p)
            assert.equal(p["master.image"], job.master.image)
            assert.equal(3, job:spec().run_policy.backoff_limit)
          end },
        { kfjob.Elastic{ nnodes = 2 },
          { nnodes = { 2, "2:4" }, nproc_per_node = { 4 } },
          function(job, p)
            assert.equal(p.nnodes, job:spec().nnodes)
            assert.equal(4, job:spec().nproc_per_node)
          end },
        { kfjob.MPIJob{ worker = { replicas = 2 } },
          { slots = { 1, 4 }, ["worker.command"] = { { "python", "train.py" } } },
          function(job, p)
            assert.equal(p.slots, job:spec().slots)
            assert.same({ "python", "train.py" }, job:spec().worker.command)
          end },
        { kfjob.HorovodJob{ worker = { replicas = 2 } },
          { elastic_timeout = { 600, 900 }, log_level = { "DEBUG" } },
          function(job, p)
            assert.equal(p.elastic_timeout, job:spec().elastic_timeout)
            assert.equal("DEBUG", job:spec().log_level)
          end },
      }
      for _, c in ipairs(cases) do
        local base, m, check = c[1], c[2], c[3]
        local n = 0
        for name, job, p in template.variants(base, m) do
          n = n + 1
          assert.equal(base.kind, job.kind)
          assert.matches("^" .. base.kind:lower() .. "%-", name)
          check(job, p)
        end
        assert.equal(2, n, base.kind)
      end
    end)

    it("builds every kind from a constructor table", function()
      for _, kind in ipairs{ "TFJob", "PyTorchJob", "MPIJob", "HorovodJob" } do
        local vs = all_variants({ worker = { image = "i:${v}" } },
                                { ["worker.replicas"] = { 1, 3 }, v = { "a" } },
                                { kind = kind, name = "${v}-${worker.replicas}" })
        assert.same({ "a-1", "a-3" }, names_of(vs))
        assert.equal(kind, vs[2].job.kind)
        assert.equal(3, vs[2].job.worker.replicas)
        assert.equal("i:a", vs[2].job.worker.image)
      end
      local vs = all_variants({ nnodes = "${n}" }, { n = { 1, 2 } }, { kind = "Elastic" })
      assert.same({ "elastic-1", "elastic-2" }, names_of(vs))
      assert.equal(2, vs[2].job:spec().nnodes)
    end)

    it("expands placeholders held by a base job", function()
      local job = kfjob.PyTorchJob{ worker = { replicas = 1, image = "repo/x:${tag}" } }
      local vs = all_variants(job, { tag = { "a", "b" }, ["worker.replicas"] = { 2 } },
                              { name = "x-${tag}" })
      assert.same({ "x-a", "x-b" }, names_of(vs))
      assert.equal("repo/x:b", vs[2].job.worker.image)
      assert.equal(2, vs[2].job.worker.replicas)
    end)

    it("calls a function base with the parameters", function()
      local seen = {}
      local vs = all_variants(function(p)
        seen[#seen + 1] = p
        return kfjob.MPIJob{ worker = { replicas = p.n * 2 }, slots = p.n }
      end, { n = { 1, 2 } }, { name = "mpi-${n}-${worker.replicas}" })
      assert.same({ "mpi-1-2", "mpi-2-4" }, names_of(vs))
      assert.same({ { n = 1 }, { n = 2 } }, seen)
      assert.equal(4, vs[2].job.worker.replicas)
    end)

    it("builds a table returned by a function base with opts.kind", function()
      local vs = all_variants(function(p) return { worker = { replicas = p.r } } end,
                              { r = { 1, 2 } }, { kind = "TFJob" })
      assert.equal(2, vs[2].job.worker.replicas)
      assert.equal("TFJob", vs[2].job.kind)
    end)

    it("sets overrides through group objects of a constructor table", function()
      local vs = all_variants({ worker = kfjob.Worker{ replicas = 1, image = "w:${tag}" } },
                              { ["worker.replicas"] = { 2, 3 } },
                              { kind = "PyTorchJob", name = "g${worker.replicas}" })
      assert.same({ "g2", "g3" }, names_of(vs))
      assert.equal(3, vs[2].job.worker.replicas)
      assert.equal("w:${tag}", vs[2].job.worker.image)   -- objects are not expanded
    end)

    it("builds nothing before it is asked", function()
      local calls = 0
      local it = template.variants(function(p)
        calls = calls + 1
        return kfjob.TFJob{ worker = { replicas = p.n } }
      end, { n = { 1, 2, 3 } }, { name = "t${n}" })
      assert.equal(0, calls)
      assert.equal("t1", (it()))
      assert.equal(1, calls)
    end)

    it("lets matrix parameters win over opts.vars", function()
      local vs = all_variants({ worker = { image = "${img}", replicas = 1 } },
                              { img = { "a:1" } },
                              { kind = "TFJob", name = "${img}", vars = { img = "b:2" } })
      assert.same({ "a-1" }, names_of(vs))
      assert.equal("a:1", vs[1].job.worker.image)
    end)

    it("raises iteration errors at the loop", function()
      local ok, e = pcall(function()
        for _ in template.variants(kfjob.TFJob{ worker = { replicas = 1 } },
                                   { ["worker.replicas"] = { -1 } }) do end
      end)
      assert.is_false(ok)
      assert.matches("^[^\n]*template_spec%.lua:%d+: kfjob%.template%.variants: variant 1", e)
    end)

    it("gives a single variant without a matrix", function()
      local job = kfjob.TFJob{ worker = { replicas = 1 } }
      local vs = all_variants(job, nil, { name = "solo" })
      assert.equal(1, #vs)
      assert.equal("solo", vs[1].name)
      assert.equal(job, vs[1].job)
      assert.same({ "tfjob" }, names_of(all_variants(job)))
    end)

    it("passes include and exclude through", function()
      local job = kfjob.PyTorchJob{ worker = { replicas = 1 } }
      local vs = all_variants(job, {
        ["worker.replicas"] = { 1, 2 },
        ["worker.requests.gpu"] = { 1, 2 },
        exclude = { { ["worker.replicas"] = 2, ["worker.requests.gpu"] = 2 } },
        include = { { ["worker.replicas"] = 16, ["worker.requests.gpu"] = 8 } },
      }, { name = "w${worker.replicas}-g${worker.requests.gpu}" })
      assert.same({ "w1-g1", "w1-g2", "w2-g1", "w16-g8" }, names_of(vs))
      assert.equal(16, vs[4].job.worker.replicas)
    end)

    describe("names", function()
      local job = kfjob.PyTorchJob{ worker = { replicas = 1, image = "ghcr.io/acme/bert:1.0" } }

      it("are made DNS-1035 labels", function()
        local vs = all_variants(job, { tag = { "V1.0_RC", "2x" } }, { name = "${tag}" })
        assert.same({ "v1-0-rc", "v2x" }, names_of(vs))
      end)

      it("can read the variant's resolved fields and opts.vars", function()
        local vs = all_variants(job, { ["worker.replicas"] = { 3 } },
                                { name = "${prefix}-${worker.image}-w${worker.replicas}",
                                  vars = { prefix = "Exp7" } })
        assert.same({ "exp7-ghcr-io-acme-bert-1-0-w3" }, names_of(vs))
      end)

      it("default to the kind and the parameter values", function()
        local vs = all_variants(job, { ["worker.replicas"] = { 2 }, ["worker.requests.gpu"] = { 1 } })
        assert.same({ "pytorchjob-2-1" }, names_of(vs))
      end)

      it("may come from a function", function()
        local vs = all_variants(job, { ["worker.replicas"] = { 2, 3 } }, {
          name = function(p, j) return "F_" .. p["worker.replicas"] .. "_" .. j.worker.replicas end,
        })
        assert.same({ "f-2-2", "f-3-3" }, names_of(vs))
      end)

      it("are capped with a stable hash suffix", function()
        local long = string.rep("long-", 12) .. "${i}"
        local vs = all_variants(job, { i = { 1, 2 } }, { name = long })
        assert.equal(50, #vs[1].name)
        assert.are_not.equal(vs[1].name, vs[2].name)
        assert.equal(vs[1].name, all_variants(job, { i = { 1 } }, { name = long })[1].name)
        vs = all_variants(job, { i = { 1 } }, { name = long, max_name = 30 })
        assert.equal(30, #vs[1].name)
      end)

      it("must be unique: a collision names both parameter sets", function()
        assert.has_error(function()
          all_variants(job, { ["worker.replicas"] = { 2, 4 }, tag = { "a", "b" } },
                       { name = "bert-${tag}" })
        end, "kfjob.template.variants: duplicate name 'bert-a' for variant 1"
          .. " {tag=\"a\", worker.replicas=2} and variant 2 {tag=\"a\", worker.replicas=4}")
      end)

      it("collide after sanitizing too", function()
        assert.has_error(function()
          all_variants(job, { tag = { "A.B", "a_b" } }, { name = "${tag}" })
        end, "kfjob.template.variants: duplicate name 'a-b' for variant 1"
          .. " {tag=\"A.B\"} and variant 2 {tag=\"a_b\"}")
      end)

      it("may repeat with unique = false", function()
        local vs = all_variants(job, { ["worker.replicas"] = { 2, 4 } },
                                { name = "same", unique = false })
        assert.same({ "same", "same" }, names_of(vs))
      end)

      it("report a template error with the variant", function()
        assert.has_error(function()
          all_variants(job, { ["worker.replicas"] = { 2 } }, { name = "${nope}" })
        end, "kfjob.template.variants: variant 1 {worker.replicas=2}: name: missing variable"
          .. " 'nope' at position 1 in \"${nope}\"")
      end)
    end)

    describe("errors", function()
      local job = kfjob.PyTorchJob{ worker = { replicas = 1 } }

      it("carry the variant's number and parameters", function()
        local got = {}
        local e = error_of(function()
          for name in template.variants(job, { ["worker.replicas"] = { 2, -1 } }) do
            got[#got + 1] = name
          end
        end)
        assert.same({ "pytorchjob-2" }, got)       -- lazy: the first one came out
        assert.matches("^kfjob%.template%.variants: variant 2 {worker%.replicas=%-1}: "
                       .. "kfjob%.PyTorchJob: worker%.replicas: ", e)
      end)

      it("pass the core's unknown-field message through", function()
        local e = error_of(all_variants, job, { ["worker.replcas"] = { 2 } })
        assert.equal("kfjob.template.variants: variant 1 {worker.replcas=2}: "
                     .. "kfjob.PyTorchJob: worker.replcas: unknown field (did you mean 'replicas'?)", e)
      end)

      it("name a missing template variable", function()
        assert.has_error(function()
          all_variants(base_table, { ["worker.replicas"] = { 2 }, tg = { "x" } },
                       { kind = "PyTorchJob", name = "n-${tg}" })
        end, "kfjob.template.variants: variant 1 {tg=\"x\", worker.replicas=2}: worker.image:"
          .. " missing variable 'tag' at position 11 in \"repo/bert:${tag}\"")
      end)

      it("catch a matrix key that is neither a field nor a used variable", function()
        assert.has_error(function()
          template.variants(job, { ["wroker.replicas"] = { 2 } })
        end, "kfjob.template.variants: matrix key 'wroker.replicas' is neither a field of"
          .. " PyTorchJob nor a variable used by the base or the name template"
          .. " (did you mean 'worker.replicas'?)")
      end)

      it("report a function base that fails or returns something else", function()
        local e = error_of(all_variants, function(p)
          if p.n == 2 then error("boom") end
          return job
        end, { n = { 1, 2 } }, { name = "f${n}" })
        assert.equal("kfjob.template.variants: variant 2 {n=2}: boom", e)
        assert.has_error(function() all_variants(function() return 42 end, { n = { 1 } }) end,
          "kfjob.template.variants: variant 1 {n=1}: base function returned a number, expected a job")
      end)

      it("check base, matrix and options at the call", function()
        assert.has_error(function() template.variants(42) end,
          "bad argument #1 to 'kfjob.template.variants' (job, table or function expected, got number)")
        assert.has_error(function() template.variants({}, {}) end,
          "kfjob.template.variants: opts.kind is required when the base is a table"
          .. " (one of Elastic, HorovodJob, JAXJob, MPIJob, PaddleJob,"
          .. " PyTorchJob, TFJob, XGBoostJob)")
        assert.has_error(function() template.variants({}, {}, { kind = "PytorchJob" }) end,
          "kfjob.template.variants: opts.kind: unknown kind \"PytorchJob\" (did you mean 'PyTorchJob'?)"
          .. " (expected one of Elastic, HorovodJob, JAXJob, MPIJob, PaddleJob,"
          .. " PyTorchJob, TFJob, XGBoostJob)")
        assert.has_error(function() template.variants(job, {}, { kind = "TFJob" }) end,
          "kfjob.template.variants: opts.kind is \"TFJob\" but the base job is a PyTorchJob")
        assert.has_error(function() template.variants(job, {}, { nmae = "x" }) end,
          "kfjob.template.variants: opts.nmae: unknown option (did you mean 'name'?)")
        assert.has_error(function() template.variants(job, { a = {} }) end,
          "kfjob.template.variants: matrix: axis 'a' is empty")
        assert.has_error(function() template.variants(job, nil, { name = "${" }) end,
          "kfjob.template.variants: opts.name: unterminated placeholder \"${\" at position 1 in \"${\"")
        assert.has_error(function() template.variants({ worker = { image = "${x" } }, nil,
                                                      { kind = "TFJob" }) end,
          "kfjob.template.variants: worker.image: unterminated placeholder \"${x\" at position 1 in \"${x\"")
        assert.has_error(function() template.variants(job, nil, { max_name = 5 }) end,
          "bad argument #3 to 'kfjob.template.variants' (integer from 10 to 63 expected, got 5)")
      end)
    end)

    it("renders the bundled example sweep", function()
      local chunk = assert(require("util").loadfile_env("examples/sweep.lua",
                             setmetatable({ params = { prefix = "Exp7" } }, { __index = _G })))
      local vs = {}
      for name, job in chunk() do vs[#vs + 1] = { name = name, job = job } end
      assert.equal(12, #vs)
      local names = names_of(vs)
      table.sort(names)
      assert.same({
        "exp7-1-4-0-w2-g1", "exp7-1-4-0-w2-g2", "exp7-1-4-0-w4-g1", "exp7-1-4-0-w4-g2",
        "exp7-1-4-0-w8-g1", "exp7-1-4-0-w8-g2",
        "exp7-1-5-0-rc1-w2-g1", "exp7-1-5-0-rc1-w2-g2", "exp7-1-5-0-rc1-w4-g1",
        "exp7-1-5-0-rc1-w4-g2", "exp7-1-5-0-rc1-w8-g1", "exp7-1-5-0-rc1-w8-g2",
      }, names)
      local last = vs[12].job
      assert.equal("PyTorchJob", last.kind)
      assert.equal(8, last.worker.replicas)
      assert.equal("ghcr.io/acme/bert-finetune:1.5.0-rc1", last.worker.image)
      assert.same({ cpu = "8", mem = "32Gi", gpu = "2" }, last:spec().worker.requests)
    end)

    it("keeps memory flat over 200 000 variants", function()
      local job = kfjob.PyTorchJob{ worker = { replicas = 1, image = "repo/img:1" } }
      local replicas, a, b = {}, {}, {}
      for i = 1, 50 do replicas[i] = i end
      for i = 1, 80 do a[i] = i end
      for i = 1, 50 do b[i] = i end
      local m = { ["worker.replicas"] = replicas, a = a, b = b }     -- 200 000
      -- measured from the first checkpoint on: what the first 25 000
      -- variants allocate once (the interpreter's string table grown to the
      -- names, caches) is no memory kept per variant, and how much of it
      -- a collection has returned by then depends on the heap the earlier
      -- specs left (LuaJIT)
      local function run(unique)
        collectgarbage("collect")
        local n, base, peak = 0, nil, nil
        for name, v in template.variants(job, m, { name = "w${worker.replicas}-${a}-${b}",
                                                   unique = unique }) do
          n = n + 1
          if n == 1 then assert.equal("w1-1-1", name) end
          if n % 25000 == 0 then
            assert.equal((n - 1) % 50 + 1, v.worker.replicas)
            collectgarbage("collect")
            local kb = collectgarbage("count")
            if base == nil then base, peak = kb, kb elseif kb > peak then peak = kb end
          end
        end
        assert.equal(200000, n)
        return (peak - base) * 1024 / (n - 25000)   -- bytes kept per variant
      end
      local flat = run(false)
      assert.is_true(flat < 1, ("%.2f bytes per variant"):format(flat))
      local named = run(true)
      assert.is_true(named < 64, ("%.2f bytes per variant with the name set"):format(named))
    end)
  end)
end)
