#!/usr/bin/env node
// Compiles a JSON Schema (draft 2020-12) with Ajv in strict mode, every
// strict check an error (strictTypes, strictTuples, strictRequired, unknown
// keywords and formats), and validates documents against it.
// Usage: node ajv_validate.js SCHEMA [DOC...], or SCHEMA - with the documents'
// paths on stdin, each ended by a NUL byte (any number of them, one node and
// one compilation of the schema for all); prints one JSON object per
// document and line, {"doc": PATH, "valid": BOOL, "errors": ["POINTER: MESSAGE"]}
// (JSON, so that a file name with a newline stays on its line); exit 0 when
// the schema compiles and every DOC is valid, 1 otherwise.
// Ajv comes from tests/tools/npm/node_modules (packaging/install-validators.sh).
"use strict";
const fs = require("fs");
const path = require("path");
const modules = path.join(__dirname, "npm", "node_modules");
const Ajv2020 = require(path.join(modules, "ajv", "dist", "2020")).default;
const addFormats = require(path.join(modules, "ajv-formats")).default;

const [schemaPath, ...args] = process.argv.slice(2);
const docs = args.length === 1 && args[0] === "-"
	? fs.readFileSync(0, "utf8").split("\0").filter((p) => p !== "")
	: args;
if (!schemaPath) {
	console.error("usage: ajv_validate.js SCHEMA [DOC...]");
	process.exit(2);
}
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
let validate;
try {
	validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, "utf8")));
} catch (e) {
	console.log(`${schemaPath}: schema refused in strict mode: ${e.message}`);
	process.exit(1);
}
let bad = 0;
for (const doc of docs) {
	const valid = validate(JSON.parse(fs.readFileSync(doc, "utf8")));
	const errors = valid ? [] : validate.errors.map((e) => `${e.instancePath || "/"}: ${e.message}`);
	if (!valid)
		bad++;
	console.log(JSON.stringify({ doc, valid, errors }));
}
process.exit(bad ? 1 : 0);
