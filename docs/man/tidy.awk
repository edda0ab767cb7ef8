# SPDX-License-Identifier: Apache-2.0
# Drops the paragraph macros scdoc writes where they do nothing (right
# after a heading, before another .P or a heading, at the end) and moves
# one written just before .RE to just after it, which renders the same;
# mandoc -T lint warns about each.  Every other line passes unchanged.
/^\.P$/ {
    if (!after_heading) pending = 1
    next
}
/^\.RE$/ {
    print
    next
}
{
    if (pending && $0 !~ /^\.(P|SH|SS)( |$)/) print ".P"
    pending = 0
    print
    after_heading = ($0 ~ /^\.(TH|SH|SS)( |$)/)
}
