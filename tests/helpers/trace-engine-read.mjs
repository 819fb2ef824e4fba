#!/usr/bin/env node
// SPDX-License-Identifier: GPL-3.0-or-later
// trace-engine-read.mjs ENGINE FILE - read a Chrome Trace Event file with
// the trace engine of Chromium's DevTools Performance panel (ENGINE is the
// analyze-trace.mjs of the npm package @paulirish/trace_engine, which
// packages that engine for Node.js) and print what its model holds:
//   processes N
//   thread <pid> <tid> <entries> <roots>   per thread with entries, sorted
//   entry <name> <count>                   entries by name over all threads
// Exit 1 when the engine refuses the file.
import path from 'node:path';
import {pathToFileURL} from 'node:url';

const [engine, file] = process.argv.slice(2);
const {analyzeTrace} = await import(pathToFileURL(path.resolve(engine)).href);
let parsed;
try {
	({parsedTrace: parsed} = await analyzeTrace(file));
} catch (e) {
	console.error(`trace-engine-read: ${file}: ${e.message}`);
	process.exit(1);
}
const renderer = parsed.data.Renderer;
const threads = [];
const names = new Map();
for (const [pid, proc] of renderer.processes) {
	for (const [tid, thread] of proc.threads) {
		const entries = thread.entries || [];
		if (!entries.length)
			continue;
		threads.push(`thread ${pid} ${tid} ${entries.length} ${thread.tree ? thread.tree.roots.size : 0}`);
		for (const e of entries)
			names.set(e.name, (names.get(e.name) || 0) + 1);
	}
}
console.log(`processes ${renderer.processes.size}`);
for (const t of threads.sort())
	console.log(t);
for (const n of [...names.keys()].sort())
	console.log(`entry ${n} ${names.get(n)}`);
