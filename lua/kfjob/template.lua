--- Templating for kfjob: many job variants from one base.
--
-- Pure Lua (5.1 to 5.4 and LuaJIT).  The module reads no globals: what it needs from the
-- standard library is captured below and `_ENV` is then set to `nil`.
-- Argument errors are raised with `error(msg, 2)`, so they point at the
-- caller; every message starts with the function's full name
-- (`kfjob.template.render: ...`).
--
-- Placeholders, as understood by `render`, `expand` and the name templates
-- of `variants`:
--
--  * `${name}`: the variable `name`;
--  * `${a.b.c}`: a dotted path into nested tables (`vars.a.b.c`); a key that
--    itself contains dots (`vars["worker.replicas"]`) is found too, and an
--    all-digit segment also indexes arrays (`${cmd.1}`);
--  * `${name:-text}`: `text` when the variable is missing or the empty string
--    (as in the shell); the default is literal text, it cannot contain `}`
--    or another placeholder;
--  * `$$`: a literal `$`.  A `$` not followed by `{` or `$` is kept as it is,
--    so `$HOME` in a command survives.
--
-- Variable names are segments of letters, digits and `_` (not starting with
-- a digit unless the segment is all digits) joined by dots.
--
-- @module kfjob.template
-- @usage
-- local template = require "kfjob.template"
-- for name, job in template.variants(base, {
--   ["worker.replicas"] = {2, 4, 8},
--   tag = {"1.4.0", "1.5.0"},
-- }, {kind = "PyTorchJob", name = "bert-${tag}-w${worker.replicas}"}) do
--   io.write(name, " ", job:to_json(), "\n")
-- end
--
-- The module is made of parts, each of them as strict as this file:
-- `kfjob.template.util` (shared helpers, `merge`), `kfjob.template.fields`
-- (job fields per kind, suggestions), `kfjob.template.placeholder`
-- (`render`, `expand`, `dns_name`), `kfjob.template.matrix` (`matrix`) and
-- `kfjob.template.variants` (`variants`).

local require = require

local U = require "kfjob.template.util"
local P = require "kfjob.template.placeholder"
local X = require "kfjob.template.matrix"
local V = require "kfjob.template.variants"
local seal = U.seal

-- No global access past this point; luacheck checks it with `std none`.
local _ENV = nil -- luacheck: ignore 211/_ENV
-- luacheck: std none
seal()

local M = U.module

--- Longest name `variants` produces by default (characters).
-- Kubernetes names pods `<job>-<role>-<index>` and caps names at 63
-- characters; 50 leaves 13 for the longest suffix kfjob produces
-- (`-evaluator-0`, `-worker-999`).
M.MAX_NAME = 50

M.render, M.expand, M.dns_name = P.api.render, P.api.expand, P.api.dns_name
M.merge = U.api.merge
M.matrix = X.api.matrix
M.variants = V.api.variants
M.count = V.api.count

return M
