#!/usr/bin/env node
// Compiles a JSON Schema (draft 2020-12) with Ajv in strict mode, every
// strict check an error (strictTypes, strictTuples, strictRequired, unknown
// keywords and formats), and validates documents against it.
// Usage: node ajv_validate.js SCHEMA [DOC...], or - with pairs of paths on
// stdin, a schema's then a document's, each ended by a NUL byte (any number
// of them: one node for all, each schema compiled once; a node start and a
// compilation cost a fifth of a CPU-second each); prints one JSON object per
// document and line, {"schema": PATH, "doc": PATH, "valid": BOOL, "errors":
// ["POINTER: MESSAGE"]} (JSON, so that a file name with a newline stays on
// its line); exit 0 when every schema compiles and every DOC is valid, 1
// otherwise.
// Ajv comes from tests/tools/npm/node_modules (packaging/install-validators.sh).
"use strict";
const fs = require("fs");
const path = require("path");
const modules = path.join(__dirname, "npm", "node_modules");
const Ajv2020 = require(path.join(modules, "ajv", "dist", "2020")).default;
const addFormats = require(path.join(modules, "ajv-formats")).default;

const args = process.argv.slice(2);
let pairs;
if (args.length === 1 && args[0] === "-") {
	const items = fs.readFileSync(0, "utf8").split("\0");
	items.pop(); // after the last NUL
	if (items.length % 2) {
		console.error("ajv_validate.js: stdin must hold SCHEMA and DOC paths in pairs");
		process.exit(2);
	}
	pairs = [];
	for (let i = 0; i < items.length; i += 2)
		pairs.push([items[i], items[i + 1]]);
} else if (args.length >= 1) {
	pairs = args.length === 1 ? [[args[0], null]] : args.slice(1).map((doc) => [args[0], doc]);
} else {
	console.error("usage: ajv_validate.js SCHEMA [DOC...] | -");
	process.exit(2);
}
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
const compiled = new Map();
let bad = 0;
for (const [schemaPath, doc] of pairs) {
	if (!compiled.has(schemaPath)) {
		try {
			compiled.set(schemaPath, ajv.compile(JSON.parse(fs.readFileSync(schemaPath, "utf8"))));
		} catch (e) {
			console.log(`${schemaPath}: schema refused in strict mode: ${e.message}`);
			process.exit(1);
		}
	}
	if (doc === null)
		continue;
	const validate = compiled.get(schemaPath);
	const valid = validate(JSON.parse(fs.readFileSync(doc, "utf8")));
	const errors = valid ? [] : validate.errors.map((e) => `${e.instancePath || "/"}: ${e.message}`);
	if (!valid)
		bad++;
	console.log(JSON.stringify({ schema: schemaPath, doc, valid, errors }));
}
process.exit(bad ? 1 : 0);
