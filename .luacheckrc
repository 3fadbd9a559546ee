std = "lua54"
files["spec/**/*.lua"] = { std = "+busted" }
-- config scripts read the CLI's --set values from the global `params`
files["examples/sweep.lua"] = { read_globals = { "params" } }
