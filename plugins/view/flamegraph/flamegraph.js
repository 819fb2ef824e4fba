// SPDX-License-Identifier: GPL-3.0-or-later
// Interaction of a Perun flame graph: tooltips (the frames' <title>), the
// details line, zoom on click, reset, and a regular-expression search.
// Each <svg class="perun-flame"> carries this script as its last child, so
// a page may hold several graphs; all state hangs off that svg element.
(function (svg) {
	'use strict';
	if (!svg || svg.perunFlame)
		return;
	var num = function (el, name) { return parseFloat(el.getAttribute(name)); };
	var width = num(svg, 'width'), pad = num(svg, 'fg:pad'), total = num(svg, 'fg:total');
	var fontSize = num(svg, 'fg:font'), charWidth = 0.59 * fontSize;
	var details = svg.querySelector('.details'), matched = svg.querySelector('.matched');
	var unzoomBtn = svg.querySelector('.unzoom'), searchBtn = svg.querySelector('.search');
	var frames = Array.prototype.map.call(svg.querySelectorAll('g.f'), function (g) {
		var rect = g.querySelector('rect'), title = g.querySelector('title').textContent;
		var cut = title.lastIndexOf(' (');
		return {
			g: g, rect: rect, text: g.querySelector('text'),
			name: cut >= 0 ? title.slice(0, cut) : title, title: title, chars: null,
			x: num(rect, 'fg:x'), w: num(rect, 'fg:w'), y: num(rect, 'y'),
			fill: rect.getAttribute('fill')
		};
	});
	var state = { zoomed: null, search: null };
	svg.perunFlame = state;

	function label(f, px) {
		var room = Math.floor((px - 6) / charWidth);
		if (room < 3)
			return '';
		if (f.name.length <= room)
			return f.name;
		// By code points: never half of a surrogate pair.
		f.chars = f.chars || Array.from(f.name);
		return f.chars.length <= room ? f.name : f.chars.slice(0, room - 2).join('') + '..';
	}

	// Show the frames of [from, from + span) across the whole width.
	function layout(from, span, y) {
		var scale = (width - 2 * pad) / span, eps = span * 1e-9;
		frames.forEach(function (f) {
			var inside = f.x >= from - eps && f.x + f.w <= from + span + eps;
			var below = y !== null && f.y > y && f.x <= from + eps && f.x + f.w >= from + span - eps;
			var px, w;
			if (y === null || (inside && f.y <= y)) {
				px = pad + (f.x - from) * scale;
				w = f.w * scale;
				f.g.classList.remove('parent');
			} else if (below) {
				px = pad;
				w = width - 2 * pad;
				f.g.classList.add('parent');
			} else {
				f.g.style.display = 'none';
				return;
			}
			f.g.style.display = '';
			f.rect.setAttribute('x', px.toFixed(2));
			f.rect.setAttribute('width', w.toFixed(2));
			f.text.setAttribute('x', (px + 3).toFixed(2));
			f.text.textContent = label(f, w);
		});
	}

	function zoom(f) {
		state.zoomed = f;
		layout(f.x, f.w, f.y);
		unzoomBtn.style.opacity = '1';
		if (state.search)
			search(state.search);
	}

	function unzoom() {
		state.zoomed = null;
		layout(0, total, null);
		unzoomBtn.style.opacity = '0';
		if (state.search)
			search(state.search);
	}

	// Colour matches and report the share of the (zoomed) total they cover,
	// counting nested matches once.
	function search(re) {
		state.search = re;
		var spans = [];
		frames.forEach(function (f) {
			if (re && re.test(f.name)) {
				f.rect.setAttribute('fill', 'rgb(230,0,230)');
				spans.push([f.x, f.x + f.w]);
			} else {
				f.rect.setAttribute('fill', f.fill);
			}
		});
		if (!re) {
			matched.textContent = ' ';
			searchBtn.style.opacity = '0.5';
			return spans.length;
		}
		var from = state.zoomed ? state.zoomed.x : 0, span = state.zoomed ? state.zoomed.w : total;
		spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
		var covered = 0, end = -Infinity;
		spans.forEach(function (s) {
			var lo = Math.max(s[0], from, end), hi = Math.min(s[1], from + span);
			if (hi > lo)
				covered += hi - lo;
			end = Math.max(end, s[1]);
		});
		matched.textContent = 'Matched: ' + (100 * covered / span).toFixed(1) + '%';
		searchBtn.style.opacity = '1';
		return spans.length;
	}
	state.search_for = function (pattern) {
		return search(pattern ? new RegExp(pattern) : null);
	};

	frames.forEach(function (f) {
		f.g.addEventListener('click', function () { zoom(f); });
		f.g.addEventListener('mouseover', function () { details.textContent = f.title; });
		f.g.addEventListener('mouseout', function () { details.textContent = ' '; });
	});
	unzoomBtn.addEventListener('click', unzoom);
	searchBtn.addEventListener('click', function () {
		if (state.search) {
			search(null);
			return;
		}
		var term = window.prompt('Search for frames matching (a regular expression):', '');
		if (!term)
			return;
		try {
			search(new RegExp(term));
		} catch (e) {
			matched.textContent = 'Bad expression: ' + term;
		}
	});
	if (svg === document.documentElement) {
		window.addEventListener('keydown', function (e) {
			if (e.key === 'f' && (e.ctrlKey || e.metaKey)) {
				e.preventDefault();
				searchBtn.dispatchEvent(new MouseEvent('click'));
			} else if (e.key === 'Escape') {
				search(null);
			}
		});
	}
	unzoom();
})(document.currentScript && document.currentScript.ownerSVGElement
	? document.currentScript.ownerSVGElement : document.documentElement);
