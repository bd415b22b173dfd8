// Extraction oracle: extracts every Python file of the stdlib and site-packages, hashes each
// FileExtraction's JSON, and either records the hashes (and the JSON, to diff against) as a
// baseline or checks them against one. A change that is only about speed must leave every hash
// as it was. Also prints parse and extraction CPU (process.cpuUsage around each call). Record
// with a build of the code before the change (a worktree of the commit before it, say).
//
//   node dist/server/bench/extract-oracle.js record <dir> [stdlib|site|all]
//   node dist/server/bench/extract-oracle.js check <dir> [stdlib|site|all]
//   node dist/server/bench/extract-oracle.js time [root]   (CPU only, 3 passes in one process; default the stdlib)
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import * as zlib from 'node:zlib';
import { Parsers } from '../src/engine/parse/parsers';
import { LANGUAGES, languageForPath } from '../src/engine/languages/registry';
import { DEFAULT_MAX_FILE_BYTES } from '../src/engine/engine';
import { pythonStdlib, sitePackages } from './corpora';

interface Corpus {
  name: string;
  root: string;
  files: string[];
}

/** `.py` files under `root` (sorted, at most the index's size limit), skipping `skip` folders. */
function pyFiles(root: string, skip: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) {
        if (d.name !== '__pycache__' && !skip.includes(p)) walk(p);
      } else if (d.isFile() && d.name.endsWith('.py') && fs.statSync(p).size <= DEFAULT_MAX_FILE_BYTES) out.push(path.relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

function corpora(which: string): Corpus[] {
  const site = sitePackages();
  const out: Corpus[] = [];
  if (which !== 'site') {
    // The installed stdlib (read-only), not a working copy someone may be editing.
    const root = pythonStdlib();
    out.push({ name: 'stdlib', root, files: pyFiles(root, [site]) });
  }
  if (which !== 'stdlib') out.push({ name: 'site', root: site, files: pyFiles(site, []) });
  return out;
}

interface Run {
  parse: number;
  extract: number;
  hashes: Map<string, string>;
  json?: Map<string, string>;
}

const cpu = (c: NodeJS.CpuUsage) => c.user + c.system;

async function extractAll(parsers: Parsers, corpus: Corpus, keepJson: boolean, onFile?: (rel: string, json: string) => void): Promise<Run> {
  const run: Run = { parse: 0, extract: 0, hashes: new Map(), json: keepJson ? new Map() : undefined };
  for (const rel of corpus.files) {
    const text = fs.readFileSync(path.join(corpus.root, rel), 'utf8');
    const lang = languageForPath(rel)!;
    const c0 = process.cpuUsage();
    const tree = parsers.parse(lang, text);
    const c1 = process.cpuUsage();
    let json: string;
    try {
      json = JSON.stringify(lang.extract(tree, text, rel, parsers.get(lang).grammar));
    } catch (e) {
      json = `THROWS ${(e as Error).message}`;
    }
    const c2 = process.cpuUsage();
    tree.delete();
    run.parse += cpu(c1) - cpu(c0);
    run.extract += cpu(c2) - cpu(c1);
    run.hashes.set(rel, createHash('sha1').update(json).digest('hex'));
    onFile?.(rel, json);
  }
  return run;
}

const secs = (us: number) => (us / 1e6).toFixed(2);

async function main(): Promise<void> {
  const [mode, dir, which = 'all'] = process.argv.slice(2);
  const parsers = new Parsers();
  await parsers.load(LANGUAGES);
  if (mode === 'time') {
    const root = dir ?? pythonStdlib();
    const corpus: Corpus = { name: 'stdlib', root, files: pyFiles(root, [sitePackages()]) };
    const runs: Run[] = [];
    for (let i = 0; i < 3; i++) runs.push(await extractAll(parsers, corpus, false));
    const med = (xs: number[]) => xs.sort((a, b) => a - b)[1];
    console.log(`${corpus.files.length} files: parse ${runs.map((r) => secs(r.parse)).join(' ')} extract ${runs.map((r) => secs(r.extract)).join(' ')} (median parse ${secs(med(runs.map((r) => r.parse)))} extract ${secs(med(runs.map((r) => r.extract)))})`);
    return;
  }
  if ((mode !== 'record' && mode !== 'check') || !dir) throw new Error('usage: extract-oracle record|check <dir> [stdlib|site|all] | time [root]');
  fs.mkdirSync(dir, { recursive: true });
  let failed = 0;
  for (const corpus of corpora(which)) {
    const hashFile = path.join(dir, `${corpus.name}.hashes.json`);
    const jsonFile = path.join(dir, `${corpus.name}.jsonl.gz`);
    if (mode === 'record') {
      const gz = zlib.createGzip();
      const out = fs.createWriteStream(jsonFile);
      gz.pipe(out);
      const run = await extractAll(parsers, corpus, false, (rel, json) => gz.write(`${JSON.stringify(rel)}\t${json}\n`));
      gz.end();
      await new Promise<void>((res) => out.on('close', () => res()));
      fs.writeFileSync(hashFile, JSON.stringify({ root: corpus.root, hashes: Object.fromEntries(run.hashes) }));
      console.log(`${corpus.name}: recorded ${run.hashes.size} files; parse ${secs(run.parse)} s extract ${secs(run.extract)} s`);
      continue;
    }
    const base = JSON.parse(fs.readFileSync(hashFile, 'utf8')) as { hashes: Record<string, string> };
    const bad: string[] = [];
    const diffDir = path.join(dir, `${corpus.name}.mismatch`);
    const run = await extractAll(parsers, corpus, false, (rel, json) => {
      if (base.hashes[rel] === createHash('sha1').update(json).digest('hex')) return;
      bad.push(rel);
      if (bad.length <= 20) {
        fs.mkdirSync(diffDir, { recursive: true });
        fs.writeFileSync(path.join(diffDir, rel.replace(/\//g, '__') + '.new.json'), json);
      }
    });
    const missing = Object.keys(base.hashes).filter((f) => !run.hashes.has(f));
    const extra = [...run.hashes.keys()].filter((f) => !(f in base.hashes));
    if (bad.length) await writeBaselines(jsonFile, new Set(bad.slice(0, 20)), diffDir);
    failed += bad.length + missing.length + extra.length;
    console.log(`${corpus.name}: ${run.hashes.size} files, ${run.hashes.size - bad.length - extra.length} identical, ${bad.length} differ, ${missing.length} missing, ${extra.length} new; parse ${secs(run.parse)} s extract ${secs(run.extract)} s`);
    for (const f of bad.slice(0, 20)) console.log(`  differs: ${f} (see ${diffDir})`);
  }
  if (failed) process.exitCode = 1;
}

/** Writes the baseline JSON of the given files beside their new JSON, for a diff. */
async function writeBaselines(jsonFile: string, files: Set<string>, diffDir: string): Promise<void> {
  const lines = readline.createInterface({ input: fs.createReadStream(jsonFile).pipe(zlib.createGunzip()), crlfDelay: Infinity });
  for await (const line of lines) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const rel = JSON.parse(line.slice(0, tab)) as string;
    if (files.has(rel)) fs.writeFileSync(path.join(diffDir, rel.replace(/\//g, '__') + '.base.json'), line.slice(tab + 1));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
