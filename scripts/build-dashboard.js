#!/usr/bin/env node
// Builds the dashboard into dist/public/dashboard: the page's own files as written (plain ES
// modules, no bundler needed) plus uPlot from node_modules, so nothing is fetched at run time.
const { cpSync, mkdirSync, readdirSync, rmSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const source = join(root, 'web', 'dashboard');
const target = join(root, 'dist', 'public', 'dashboard');
const vendor = [
  join(root, 'node_modules', 'uplot', 'dist', 'uPlot.iife.min.js'),
  join(root, 'node_modules', 'uplot', 'dist', 'uPlot.min.css'),
];

rmSync(target, { recursive: true, force: true });
mkdirSync(target, { recursive: true });
for (const file of readdirSync(source)) cpSync(join(source, file), join(target, file));
for (const file of vendor) cpSync(file, join(target, file.split(/[\\/]/).pop()));

const files = readdirSync(target);
const bytes = files.reduce((total, file) => total + statSync(join(target, file)).size, 0);
console.log(`dashboard: ${files.length} files, ${(bytes / 1024).toFixed(1)} KiB in ${target}`);
