-- template.count (the size of a matrix, without making its combinations)
-- and the variants iterator going on after a variant that failed.
local template = require "kfjob.template"
local error_of = require("util").error_of

-- The count by iterating: what template.count must equal.
local function brute(m)
  local n = 0
  for _ in template.matrix(m) do n = n + 1 end
  return n
end

describe("template.count", function()
  local cases = {
    { "a product", { a = { 1, 2, 3 }, b = { "x", "y" } }, 6 },
    { "overlapping excludes", { a = { 1, 2, 3 }, b = { "x", "y" },
        exclude = { { a = 1 }, { b = "y" }, { a = 1, b = "y" } } }, 2 },
    { "repeated axis values", { a = { 1, 1, 2 }, b = { "x", "y" },
        exclude = { { a = 1, b = "x" } } }, 4 },
    { "includes that fit and do not", { a = { 1, 2 },
        include = { { a = 1, c = 5 }, { a = 3 }, { c = 7 } } }, 3 },
    { "only includes", { include = { { a = 1 }, { b = 2 } } }, 2 },
    { "an include of an excluded combination", { a = { 1 }, exclude = { { a = 1 } },
        include = { { a = 1, z = 1 } } }, 1 },
    { "tables as values", { a = { { x = 1 }, { x = 2 } }, exclude = { { a = { x = 1 } } } }, 1 },
  }
  for _, c in ipairs(cases) do
    it(c[1], function()
      assert.equal(c[3], brute(c[2]))
      assert.equal(c[3], template.count(c[2]))
      assert.equal(c[3], template.count(template.matrix(c[2])))
    end)
  end

  it("counts many exclude entries by iterating", function()
    local ex = {}
    for i = 1, 20 do ex[i] = { a = i } end
    local a = {}
    for i = 1, 30 do a[i] = i end
    assert.equal(10, template.count({ a = a, exclude = ex }))
  end)

  it("counts a variants iterator, whatever it has yielded", function()
    local it = template.variants({ worker = { replicas = 1 } },
      { ["worker.replicas"] = { 1, 2, 3 }, tag = { "a", "b" }, exclude = { { tag = "b",
        ["worker.replicas"] = 3 } } }, { kind = "TFJob", name = "j-${tag}-${worker.replicas}" })
    assert.equal(5, template.count(it))
    it()
    assert.equal(5, template.count(it))
  end)

  it("refuses anything else", function()
    assert.equal("bad argument #1 to 'kfjob.template.count' (not an iterator of kfjob.template)",
                 error_of(template.count, function() end))
    assert.equal("bad argument #1 to 'kfjob.template.count' (table expected, got number)",
                 error_of(template.count, 3))
    assert.equal("kfjob.template.count: axis 'a' is empty", error_of(template.count, { a = {} }))
  end)
end)

describe("template.variants after a variant that failed", function()
  it("goes on with the next variant when called again", function()
    local it = template.variants({ worker = { replicas = "${r}" } }, { r = { 1, "x", 2 } },
                                 { kind = "TFJob", name = "j-${r}" })
    assert.equal("j-1", (it()))
    assert.is_false(pcall(it))
    local name, job = it()
    assert.equal("j-2", name)
    assert.equal(2, job.worker.replicas)
    assert.is_nil(it())
  end)
end)
