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
