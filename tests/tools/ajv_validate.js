#!/usr/bin/env node
// Compiles a JSON Schema (draft 2020-12) with Ajv in strict mode, every
// strict check an error (strictTypes, strictTuples, strictRequired, unknown
// keywords and formats), and validates documents against it.
// Usage: node ajv_validate.js SCHEMA [DOC...]; prints "ok DOC" for a valid
// document and "DOC: POINTER: MESSAGE" for each error of an invalid one;
// exit 0 when the schema compiles and every DOC is valid, 1 otherwise.
// Ajv comes from tests/tools/npm/node_modules (packaging/install-validators.sh).
"use strict";
const fs = require("fs");
const path = require("path");
const modules = path.join(__dirname, "npm", "node_modules");
const Ajv2020 = require(path.join(modules, "ajv", "dist", "2020")).default;
const addFormats = require(path.join(modules, "ajv-formats")).default;

const [schemaPath, ...docs] = process.argv.slice(2);
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
	if (validate(JSON.parse(fs.readFileSync(doc, "utf8")))) {
		console.log(`ok ${doc}`);
	} else {
		bad++;
		for (const e of validate.errors)
			console.log(`${doc}: ${e.instancePath || "/"}: ${e.message}`);
	}
}
process.exit(bad ? 1 : 0);
