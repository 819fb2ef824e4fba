/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun serve: what its pages share: the API, escaping, small widgets. */
"use strict";

const perun = {
	/* GET a JSON document of the API; throws Error(message) on an error reply. */
	async api(path) {
		const r = await fetch(path, { credentials: "same-origin" });
		const text = await r.text();
		let doc;
		try {
			doc = JSON.parse(text);
		} catch (e) {
			throw new Error(path + ": not JSON (" + r.status + ")");
		}
		if (!r.ok)
			throw new Error(doc.error || (path + ": " + r.status));
		return doc;
	},
	esc(s) {
		return String(s === undefined || s === null ? "" : s).replace(/[&<>"']/g,
			(c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }[c]));
	},
	el(tag, attrs, ...kids) {
		const e = document.createElement(tag);
		for (const [k, v] of Object.entries(attrs || {})) {
			if (k === "class") e.className = v;
			else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
			else e.setAttribute(k, v);
		}
		for (const k of kids)
			e.append(k instanceof Node ? k : document.createTextNode(String(k)));
		return e;
	},
	query(name) {
		return new URLSearchParams(location.search).get(name);
	},
	showError(where, err) {
		where.replaceChildren(perun.el("p", { class: "error" }, String(err.message || err)));
	},
	profileLink(sel, minor, text) {
		const q = new URLSearchParams({ p: sel });
		if (minor) q.set("minor", minor);
		return perun.el("a", { href: "/profile?" + q.toString() }, text || sel);
	},
};

/* GET a rendered view: {ok, mime, text} or {ok: false, error}. */
perun.view = async function (path) {
	const r = await fetch(path, { credentials: "same-origin" });
	const text = await r.text();
	if (r.ok)
		return { ok: true, mime: r.headers.get("Content-Type") || "", text: text };
	let msg = r.status + "";
	try {
		msg = JSON.parse(text).error || msg;
	} catch (e) {
		/* not JSON: keep the status */
	}
	return { ok: false, error: msg };
};

/* The views of list (from /api/.../views?<the profiles>) in box: a tab
 * for each that fits, fetched from urlOf(name) when first shown; the
 * ones that do not fit are listed with the reason.  Resolves once the
 * first view is shown. */
perun.showViews = async function (box, list, urlOf) {
	const tabs = perun.el("div", { class: "tabs" });
	const frame = perun.el("div", {});
	const skipped = perun.el("ul", { class: "muted" });
	box.replaceChildren(tabs, frame, perun.el("h3", {}, "Views that do not fit"), skipped);
	const shown = {};
	async function show(name, button) {
		for (const b of tabs.children) b.classList.toggle("active", b === button);
		if (!shown[name]) {
			const got = await perun.view(urlOf(name));
			if (!got.ok)
				shown[name] = perun.el("p", { class: "error" }, got.error);
			else if (got.mime.startsWith("text/plain"))
				shown[name] = perun.el("pre", { class: "view", "data-view": name }, got.text);
			else {
				/* The view's page runs its scripts in an origin of its
				 * own: it reaches neither this page nor the token. */
				shown[name] = perun.el("iframe", { class: "view", "data-view": name, title: name,
					sandbox: "allow-scripts" });
				shown[name].srcdoc = got.text;
			}
		}
		frame.replaceChildren(shown[name]);
	}
	let first = null;
	for (const v of list.views) {
		if (v.fits === false) {
			skipped.append(perun.el("li", { class: "view-skipped", "data-view": v.name }, v.name + ": " + v.error));
			continue;
		}
		const button = perun.el("button", { "data-view": v.name }, v.name);
		button.addEventListener("click", () => show(v.name, button));
		tabs.append(button);
		if (!first) first = [v.name, button];
	}
	if (!skipped.children.length)
		skipped.append(perun.el("li", {}, "(none)"));
	if (first)
		await show(first[0], first[1]);
	else
		frame.append(perun.el("p", { class: "muted" }, "No view fits."));
};

perun.ready = function (state) {
	document.body.dataset.ready = state;
};
