/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun serve: the Runs page.  Sessions (search, create, rename, delete),
 * a run form generated from the options each collector and postprocessor
 * declares (GET /api/plugins), the counters event picker (GET /api/counters/events,
 * most used first), the live output and plot of a run (Server-Sent Events
 * of GET /api/runs/<id>/events) and the history of the session's runs.
 * Links: /runs?session=<id>, /runs?run=<id> (a run, reloaded).
 */
"use strict";

const runs = {
	csrf: null,
	plugins: { collect: [], postprocess: [] },
	events: null, /* the picker's list, loaded when first needed */
	chosen: new Set(), /* the picker's chosen events */
	session: null,
	watching: null, /* EventSource */
	chart: null,
	points: 0, /* samples plotted for the run shown */
};

function $(id) {
	return document.getElementById(id);
}

/* A state-changing request with the CSRF token; the answer as JSON. */
async function send(method, path, body) {
	if (!runs.csrf)
		runs.csrf = (await perun.api("/api/csrf")).csrf;
	const r = await fetch(path, {
		method, credentials: "same-origin",
		headers: { "Content-Type": "application/json", "X-CSRF-Token": runs.csrf },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	let doc = {};
	try {
		doc = await r.json();
	} catch (e) {
		throw new Error(path + ": not JSON (" + r.status + ")");
	}
	if (!r.ok)
		throw new Error(doc.error || path + ": " + r.status);
	return doc;
}

function showStatus(err) {
	if (err)
		perun.showError($("status"), err);
	else
		$("status").replaceChildren();
}

/* Sessions */

async function loadSessions() {
	const q = $("session-search").value.trim();
	const doc = await perun.api("/api/sessions" + (q ? "?q=" + encodeURIComponent(q) : ""));
	const items = doc.sessions.map((s) => {
		const li = perun.el("li", { class: s.id === runs.session ? "current" : "", "data-id": s.id });
		const name = perun.el("span", { class: "session-name" }, s.name);
		const count = perun.el("span", { class: "muted" }, " (" + s.runs + ")");
		const rename = perun.el("button", { class: "session-rename", type: "button" }, "rename");
		const del = perun.el("button", { class: "session-delete", type: "button" }, "delete");
		li.append(name, count, " ", rename, " ", del);
		li.addEventListener("click", (e) => {
			if (e.target === li || e.target === name || e.target === count)
				selectSession(s.id, s.name);
		});
		rename.addEventListener("click", () => {
			const input = perun.el("input", { class: "session-newname", value: s.name, size: 14 });
			const save = perun.el("button", { class: "session-save", type: "button" }, "save");
			save.addEventListener("click", () => send("PUT", "/api/sessions/" + s.id, { name: input.value })
				.then(() => loadSessions()).catch(showStatus));
			li.replaceChildren(input, save);
		});
		del.addEventListener("click", () => {
			/* Two clicks: the first asks. */
			if (del.textContent !== "sure?") {
				del.textContent = "sure?";
				return;
			}
			send("DELETE", "/api/sessions/" + s.id).then(() => {
				if (runs.session === s.id)
					selectSession(null, "");
				return loadSessions();
			}).catch(showStatus);
		});
		return li;
	});
	$("session-list").replaceChildren(...items);
	return doc.sessions;
}

function selectSession(id, name) {
	runs.session = id;
	$("session-title").textContent = id ? "in session " + name : "(choose or create a session)";
	$("run-submit").disabled = !id;
	for (const li of document.querySelectorAll("#session-list li"))
		li.classList.toggle("current", li.dataset.id === id);
	const url = id ? "/runs?session=" + id : "/runs";
	history.replaceState(null, "", url);
	return loadHistory();
}

async function createSession() {
	const name = $("session-name").value.trim();
	try {
		const s = await send("POST", "/api/sessions", { name });
		$("session-name").value = "";
		await loadSessions();
		await selectSession(s.id, s.name);
		showStatus(null);
	} catch (e) {
		showStatus(e);
	}
}

/* The form, from the declared options */

function optionField(unit, o) {
	const attrs = { "data-unit": unit, "data-name": o.name, "data-type": o.type,
		"data-default": o.default === null ? "" : o.default, title: o.help || "" };
	let input;
	if (o.type === "flag") {
		input = perun.el("input", { ...attrs, type: "checkbox" });
		input.checked = o.default === "true";
	} else if (o.type === "choice" && o.choices) {
		input = perun.el("select", attrs, perun.el("option", { value: "" }, "(default)"),
			...o.choices.split("|").map((c) => perun.el("option", { value: c }, c)));
	} else {
		input = perun.el("input", { ...attrs, type: o.type === "int" || o.type === "float" ? "number" : "text",
			step: o.type === "float" ? "any" : "1", placeholder: o.default === null ? "" : o.default, size: 12 });
	}
	input.classList.add("opt");
	return perun.el("label", {}, "--" + o.name + (o.type === "flag" ? "" : " (" + o.type + ")"), input);
}

/* The options set in a fieldset that differ from their defaults. */
function optionValues(box) {
	const opts = {};
	for (const input of box.querySelectorAll(".opt")) {
		const name = input.dataset.name, def = input.dataset.default;
		if (input.type === "checkbox") {
			if (input.checked !== (def === "true"))
				opts[name] = input.checked;
		} else if (input.value !== "" && input.value !== def) {
			opts[name] = input.dataset.type === "int" ? parseInt(input.value, 10)
				: input.dataset.type === "float" ? parseFloat(input.value) : input.value;
		}
	}
	return opts;
}

function setOptionValues(box, opts) {
	for (const input of box.querySelectorAll(".opt")) {
		const v = opts ? opts[input.dataset.name] : undefined;
		if (input.type === "checkbox")
			input.checked = v === undefined ? input.dataset.default === "true" : !!v;
		else
			input.value = v === undefined ? "" : Array.isArray(v) ? v.join(",") : v;
	}
}

function renderCollector() {
	const name = $("collector").value;
	const c = runs.plugins.collect.find((p) => p.name === name);
	const box = $("collector-options");
	box.replaceChildren(perun.el("legend", {}, name + " options"));
	const picker = name === "counters";
	for (const o of (c && c.options) || [])
		if (!(picker && o.name === "event"))
			box.append(optionField(name, o));
	$("picker").hidden = !picker;
	if (picker)
		loadEvents().catch(showStatus);
}

function renderPostprocessors() {
	const box = $("postprocessors");
	box.replaceChildren(perun.el("legend", {}, "postprocessors"));
	for (const p of runs.plugins.postprocess) {
		const check = perun.el("input", { type: "checkbox", class: "post", "data-name": p.name });
		const opts = perun.el("fieldset", { class: "post-options", "data-name": p.name, hidden: "" },
			...(p.options || []).map((o) => optionField(p.name, o)));
		check.addEventListener("change", () => { opts.hidden = !check.checked; });
		box.append(perun.el("label", { title: p.summary || "" },
			perun.el("span", {}, check, " " + p.name)), opts);
	}
}

/* The counters event picker */

async function loadEvents() {
	if (!runs.events)
		runs.events = (await perun.api("/api/counters/events")).events;
	renderPicker();
}

function renderPicker() {
	const q = $("picker-search").value.trim().toLowerCase();
	const shown = [];
	for (const e of runs.events || []) {
		if (q && !e.name.toLowerCase().includes(q) && !(e.description || "").toLowerCase().includes(q))
			continue;
		if (shown.length >= 300)
			break;
		const box = perun.el("input", { type: "checkbox", "data-event": e.name });
		box.checked = runs.chosen.has(e.name);
		box.addEventListener("change", () => {
			if (box.checked) runs.chosen.add(e.name);
			else runs.chosen.delete(e.name);
			showChosen();
		});
		shown.push(perun.el("label", { title: e.description || "", class: e.usable ? "" : "muted" },
			box, e.name, perun.el("span", { class: "muted" },
				(e.used ? " used " + e.used + "x" : "") + " " + (e.description || ""))));
	}
	$("picker-list").replaceChildren(...shown);
	showChosen();
}

function showChosen() {
	$("picker-chosen").textContent = runs.chosen.size ? "chosen: " + [...runs.chosen].join(", ") : "";
}

/* The request of the form, and the form of a request */

function formRequest() {
	const collector = $("collector").value;
	const collectorOptions = optionValues($("collector-options"));
	if (collector === "counters" && runs.chosen.size)
		collectorOptions.event = [...runs.chosen].join(",");
	const postprocessors = [];
	for (const check of document.querySelectorAll("#postprocessors .post"))
		if (check.checked)
			postprocessors.push({ name: check.dataset.name, options: optionValues(
				document.querySelector(".post-options[data-name=\"" + check.dataset.name + "\"]")) });
	const env = {};
	for (const line of $("env").value.split("\n")) {
		const eq = line.indexOf("=");
		if (eq > 0)
			env[line.slice(0, eq).trim()] = line.slice(eq + 1);
	}
	return { session: runs.session, collector, collector_options: collectorOptions, postprocessors,
		command: $("command").value.trim(), args: $("args").value, workload: $("workload").value, env };
}

function fillForm(req) {
	$("collector").value = req.collector;
	renderCollector();
	setOptionValues($("collector-options"), req.collector_options);
	runs.chosen = new Set();
	const ev = (req.collector_options || {}).event;
	for (const e of (Array.isArray(ev) ? ev : ev ? String(ev).split(",") : []))
		runs.chosen.add(e.trim());
	if (req.collector === "counters")
		loadEvents().catch(showStatus);
	for (const check of document.querySelectorAll("#postprocessors .post")) {
		const p = (req.postprocessors || []).find((x) => x.name === check.dataset.name);
		check.checked = !!p;
		const box = document.querySelector(".post-options[data-name=\"" + check.dataset.name + "\"]");
		box.hidden = !p;
		setOptionValues(box, p ? p.options : null);
	}
	$("command").value = req.command || "";
	$("args").value = req.args || "";
	$("workload").value = req.workload || "";
	$("env").value = Object.entries(req.env || {}).map(([k, v]) => k + "=" + v).join("\n");
}

async function submitRun(e) {
	e.preventDefault();
	try {
		const run = await send("POST", "/api/runs", formRequest());
		showStatus(null);
		await loadHistory();
		watch(run);
	} catch (err) {
		showStatus(err);
	}
}

/* The live output and plot */

function resetChart() {
	if (runs.chart)
		runs.chart.destroy();
	runs.points = 0;
	runs.chart = new Chart($("plot"), {
		type: "line",
		data: { datasets: [] },
		options: {
			animation: false, parsing: false, responsive: true, maintainAspectRatio: false,
			scales: { x: { type: "linear", title: { display: true, text: "seconds" } },
				y: { title: { display: true, text: "count per interval" } } },
		},
	});
}

const colours = ["#23395b", "#c62828", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f"];

function addSample(s) {
	let ds = runs.chart.data.datasets.find((d) => d.label === s.event);
	if (!ds) {
		const c = colours[runs.chart.data.datasets.length % colours.length];
		ds = { label: s.event, data: [], borderColor: c, backgroundColor: c, pointRadius: 2 };
		runs.chart.data.datasets.push(ds);
	}
	ds.data.push({ x: s.t, y: s.value });
	runs.points++;
}

/* kperf --top-every-ms: the top functions so far. */
function showTop(top) {
	$("top").hidden = false;
	$("top").dataset.samples = top.samples;
	document.querySelector("#top tbody").replaceChildren(...top.top.map((f) =>
		perun.el("tr", {}, perun.el("td", {}, perun.el("code", {}, f.name)), perun.el("td", {}, f.samples))));
}

/* Show run: its events from the first, live while it goes. */
function watch(run) {
	if (runs.watching)
		runs.watching.close();
	resetChart();
	$("top").hidden = true;
	const out = $("output");
	out.textContent = "";
	$("live-title").textContent = run.request.collector + " " + run.request.command + " (" + run.id + ")";
	$("run-state").textContent = run.status;
	const source = new EventSource("/api/runs/" + run.id + "/events");
	runs.watching = source;
	let pending = false;
	source.onmessage = (m) => {
		const e = JSON.parse(m.data);
		if (e.n === 1 && run.status === "queued") {
			run.status = "running";
			$("run-state").textContent = "running";
			loadHistory().catch(showStatus);
		}
		out.append(e.line + "\n");
		if (e.sample)
			addSample(e.sample);
		if (e.top)
			showTop(e.top);
		if (!pending) {
			/* One redraw per animation frame, however many events came. */
			pending = true;
			requestAnimationFrame(() => {
				pending = false;
				runs.chart.update("none");
				out.scrollTop = out.scrollHeight;
			});
		}
	};
	source.addEventListener("end", (m) => {
		source.close();
		const done = JSON.parse(m.data);
		$("run-state").textContent = done.status + (done.status === "failed" ? ": " + (done.error || "").trim().split("\n").pop() : "");
		runs.chart.update("none");
		loadHistory().catch(showStatus);
		loadSessions().catch(showStatus);
	});
	source.addEventListener("error", (m) => {
		if (m.data) {
			source.close();
			showStatus(new Error(JSON.parse(m.data).error));
		}
	});
}

/* The history */

async function loadHistory() {
	const body = document.querySelector("#history tbody");
	if (!runs.session) {
		body.replaceChildren();
		return;
	}
	const doc = await perun.api("/api/runs?session=" + runs.session);
	body.replaceChildren(...doc.runs.map((r) => {
		const q = r.request;
		const actions = perun.el("td", {});
		const reload = perun.el("button", { class: "run-reload", type: "button" }, "reload");
		reload.addEventListener("click", () => { fillForm(q); watch(r); });
		const del = perun.el("button", { class: "run-delete", type: "button" }, "delete");
		del.addEventListener("click", () => {
			if (del.textContent !== "sure?") {
				del.textContent = "sure?";
				return;
			}
			send("DELETE", "/api/runs/" + r.id).then(() => loadHistory()).catch(showStatus);
		});
		actions.append(reload, " ", perun.el("a", { class: "run-link", href: "/runs?run=" + r.id }, "link"), " ",
			perun.el("a", { class: "run-log", href: "/api/runs/" + r.id + "/log", download: r.id + ".log" }, "log"));
		if (r.profile)
			actions.append(" ", perun.el("a", { class: "run-profile", href: "/api/runs/" + r.id + "/profile",
				download: r.profile.split("/").pop() }, "profile"));
		actions.append(" ", del);
		const status = perun.el("td", { class: "status-" + r.status }, r.status +
			(r.exit_code ? " (exit " + r.exit_code + ")" : ""));
		if (r.status === "failed" && r.error)
			status.append(perun.el("pre", { class: "errlog" }, r.error));
		return perun.el("tr", { "data-id": r.id },
			perun.el("td", {}, r.created.replace("T", " ").replace(/\.\d+Z$/, "")),
			perun.el("td", {}, q.collector + (q.postprocessors.length ? " + " +
				q.postprocessors.map((p) => p.name).join(", ") : "")),
			perun.el("td", {}, perun.el("code", {}, [q.command, q.args, q.workload].filter((x) => x).join(" "))),
			status, actions);
	}));
}

async function main() {
	try {
		const info = await perun.api("/api/info");
		$("root").textContent = info.root + (info.read_only ? " (read-only)" : "");
		for (const kind of ["collect", "postprocess"])
			runs.plugins[kind] = (await perun.api("/api/plugins?kind=" + kind)).plugins
				.filter((p) => p.status === "ok");
		$("collector").replaceChildren(...runs.plugins.collect.map((p) =>
			perun.el("option", { value: p.name, title: p.summary || "" }, p.name)));
		$("collector").addEventListener("change", renderCollector);
		renderCollector();
		renderPostprocessors();
		$("picker-search").addEventListener("input", renderPicker);
		$("session-search").addEventListener("input", () => loadSessions().catch(showStatus));
		$("session-create").addEventListener("click", createSession);
		$("run-form").addEventListener("submit", submitRun);
		resetChart();
		const sessions = await loadSessions();
		const runId = perun.query("run");
		let sid = perun.query("session");
		let run = null;
		if (runId) {
			run = await perun.api("/api/runs/" + runId);
			sid = run.session;
		}
		const s = sessions.find((x) => x.id === sid);
		await selectSession(s ? s.id : null, s ? s.name : "");
		if (run) {
			history.replaceState(null, "", "/runs?run=" + run.id);
			fillForm(run.request);
			watch(run);
		}
	} catch (e) {
		showStatus(e);
	}
}
main();
