#!/usr/bin/env node
// SPDX-License-Identifier: GPL-3.0-or-later
// speedscope-read.mjs BUNDLE FILE - read FILE with speedscope's own importer
// (BUNDLE is dist/release/speedscope-*.js of the npm package speedscope) and
// print what speedscope made of it:
//   format <how speedscope says it imported the file>
//   <frame;frame;... self weight>   one line per stack with a weight, sorted
//   total <the profile's total weight>
// Exit 1 when speedscope recognises no format, 2 when the bundle has no
// importer this script can reach.
//
// The importer is the one behind the bundle's public
// speedscope.loadFileFromBase64 (what the speedscope command line feeds
// files to); it is made reachable by one assignment at the start of the
// bundle's scope.  The page itself needs a browser and fails to start here,
// which the importers do not mind.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

const [bundle, file] = process.argv.slice(2);
let src = fs.readFileSync(bundle, 'utf8');
const api = /loadFileFromBase64:\((\w+),(\w+)\)=>\{this\.loadProfile\(\(\)=>([\w$]+)\(\1,\2\)\)\}/.exec(src);
const start = src.indexOf('(()=>{');
if (!api || start < 0) {
	console.error('speedscope-read: no loadFileFromBase64 importer in ' + bundle);
	process.exit(2);
}
src = src.slice(0, start + 6) + `globalThis.__speedscopeImport=${api[3]};` + src.slice(start + 6);

const anything = new Proxy(function () {}, {
	get: (t, k) => (k === Symbol.toPrimitive ? () => '' : anything),
	apply: () => anything,
	construct: () => anything,
});
globalThis.window = globalThis;
for (const name of ['document', 'location', 'navigator'])
	globalThis[name] = anything;
const print = console.log;
const said = [];
console.log = (...args) => said.push(args.join(' '));
try {
	vm.runInThisContext(src, { filename: bundle });
} catch (e) {
	// The user interface has no DOM to start in.
}
if (typeof globalThis.__speedscopeImport !== 'function') {
	console.error('speedscope-read: the importer was not reached');
	process.exit(2);
}
said.length = 0;
const text = fs.readFileSync(file);
const group = await globalThis.__speedscopeImport(path.basename(file), text.toString('base64'));
if (!group || !group.profiles.length) {
	console.error(`speedscope-read: ${file}: not a format speedscope knows`);
	process.exit(1);
}
const profile = group.profiles[0];
const lines = [];
(function walk(node, stack) {
	if (node.frame && node.frame.name !== undefined && node.parent)
		stack = stack.concat(node.frame.name);
	if (stack.length && node.selfWeight)
		lines.push(`${stack.join(';')} ${node.selfWeight}`);
	for (const child of node.children)
		walk(child, stack);
})(profile.getGroupedCalltreeRoot(), []);
print('format ' + said.filter((s) => /^Importing/.test(s)).join('; '));
for (const line of lines.sort())
	print(line);
print('total ' + profile.getTotalWeight());
