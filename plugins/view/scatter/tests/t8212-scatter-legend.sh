#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Long uids and model labels: the legend and title of the static SVG lie
# within the image, and the page's Chart.js legend within its canvas, as
# headless Chromium lays them out; what is cut keeps its meaning.
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/tests/helpers/browser-lib.sh"

browser_require
chartjs_require

# Four uids (a C++ template instance, a long path, a short one, one with 46
# models), with models whose labels run long: big coefficients, a long
# method name.
python3 - <<-\EOF || test_skip_all "python3 is needed to write the profile"
import json
uids = ["std::vector<std::pair<std::basic_string<char>, int>>::_M_realloc_insert"
        "<std::pair<std::basic_string<char>, int> const&>(iterator, value_type const&)",
        "/home/someone/projects/very/deeply/nested/source/tree/src/module/submodule/"
        "file_with_a_long_name.cpp:1234", "short", "many"]
res, rtm, models = {}, {}, []
for i, uid in enumerate(uids):
    res[f"r{i}#0"] = {"structure-unit-size": list(range(1, 21)),
                      "amount": [3 * x + 7 + x % 3 for x in range(1, 21)]}
    rtm[f"r{i}#0"] = {"uid": uid, "type": "mixed"}
    for name, coeffs in [("linear", [7.123456789, 3.0000001]),
                         ("quadratic", [123456.789, -2345.6789, 0.000123]),
                         ("logarithmic", [1e9, 2e9]), ("power", [1.5, 0.5]),
                         ("exponential", [1.5, 0.01]), ("constant", [42.0])]:
        models.append({"uid": uid, "model": name, "method": "full", "r_square": 0.987654321,
                       "x_start": 1, "x_end": 20,
                       "coeffs": [{"name": f"b{k}", "value": v} for k, v in enumerate(coeffs)]})
    for w in range(3 if uid != "many" else 40):
        models.append({"uid": uid, "model": "moving_average", "window_width": w + 2,
                       "r_square": 0.5, "x_start": 1, "x_end": 20, "bucket_stats": [1.0] * 20,
                       "moving_method": "exponential_moving_average_with_a_long_name"})
json.dump({"header": {"type": "mixed", "cmd": "prog", "workload": "",
                      "units": {"mixed(time delta)": "ms"}},
           "collector_info": {"name": "trace", "params": {}}, "postprocessors": [],
           "resources": res, "resource_type_map": rtm, "models": models},
          open("long.perf", "w"))
EOF

# [x0, y0, x1, y1] of a selector's box and the image's [width, height].
BOX='JSON.stringify(["g.legend", "text.title"].map(function (s) { var b = document.querySelector(s).getBBox(); return [b.x, b.y, b.x + b.width, b.y + b.height].map(Math.round); }).concat([[document.documentElement.width.baseVal.value, document.documentElement.height.baseVal.value]]))'

# inside <svg>: the boxes of browser_eval "$BOX" lie within the image.
inside() {
	python3 - "$1" <<-\EOP
	import json, sys
	legend, title, (w, h) = json.loads(json.load(open("box")))
	for name, (x0, y0, x1, y1) in (("legend", legend), ("title", title)):
	    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
	        sys.exit(f"{sys.argv[1]}: {name} [{x0}, {y0}, {x1}, {y1}] outside {w}x{h}")
	EOP
}

test_expect_success 'the SVG legends and titles lie within their images' '
	mkdir out &&
	perun show long.perf scatter -f out/page >stdout &&
	test_grep "^4 plots written" stdout &&
	n=0 &&
	for svg in out/*.svg; do
		n=$((n + 1)) &&
		browser_check "$svg" "svg$n" --eval "$BOX" &&
		browser_eval "$BOX" >box &&
		inside "$svg" || return 1
	done &&
	test $n = 4
'

test_expect_success 'labels wrap rather than lose their r^2; paths keep their end' '
	for svg in out/*.svg; do
		test $(grep -c "r^2=0.988</text>" "$svg") -ge 5 || return 1
	done &&
	test_grep "file_with_a_long_name.cpp:1234</text>" out/page__home*.svg
'

test_expect_success 'entries that do not fit are counted' '
	test_grep "^<text [^>]*>([1-9][0-9]* more)</text>$" out/page_many.svg
'

FITS='JSON.stringify(PERUN_PLOTS.map(function (p) { var c = p.chart; return c.legend.legendHitBoxes.filter(function (b) { return b.left < 0 || b.top < 0 || b.left + b.width > c.width || b.top + b.height > c.height; }).length; }))'

test_expect_success 'the page legends lie within their canvases, on a narrow screen too' '
	browser_check out/page.html page --width 420 --eval "$FITS" &&
	test "$(browser_eval "$FITS")" = "\"[0,0,0,0]\""
'

test_done
