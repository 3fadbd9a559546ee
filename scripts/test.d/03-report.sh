# shellcheck shell=bash
# The run's last lines name each failed test (scripts/test_report.sh): fed
# planted failures of busted, ctest and a check, it prints them as
# "FAILED: <stage>: <test>" right above the closing counts.
stage "test runner: failures named in the last lines"
check "test/report_selftest.sh: busted, ctest and check failures named" bash test/report_selftest.sh
