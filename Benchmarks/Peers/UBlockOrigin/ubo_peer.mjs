// ubo_peer.mjs — uBlock Origin's static network filtering engine as a peer engine of BlockBench's
// harness, run under Node.js (20.19 or later: uBO's files are ES modules without a package.json).
//
// uBO is not copied here: its JavaScript is loaded at run time from Debian's package
// webext-ublock-origin-firefox (or the folder named by --root). This driver only feeds it filter
// text and requests, the way the extension does, and times it.
//
// Driven by Sources/Engines/UBlockOriginEngine.swift through the line protocol of the adblock-rust
// peer (Benchmarks/Peers/AdblockRust/adblock_peer.py): one JSON object a line in each direction,
// one answer per command, in order.
//
//   {"op": "hello"}
//       -> {"ok": true, "ublock": "1.67.0", "node": "v20.20.2", "root": "/usr/share/...", "timerNanoseconds": 40}
//   {"op": "build", "engine": "e1", "lists": ["<base64 ABP text>", ...]}
//       -> {"ok": true, "seconds": 0.9, "bytes": 5123456, "filters": 70000,
//           "heapGrowthBytes": 40000000, "rssGrowthBytes": 110000000}
//   {"op": "load", "engine": "e1"}
//       -> {"ok": true, "seconds": 0.05}
//   {"op": "resident", "engines": ["e1", "e2"]}
//       -> {"ok": true, "loadedBytes": 5123456, "residentBefore": ..., "residentAfter": ...,
//           "anonymousBefore": ..., "anonymousAfter": ...}
//   {"op": "match", "engines": ["e1", "e2"], "requests": [["url", "source url", "type"], ...]}
//       -> {"ok": true, "blocked": [0, 1, ...], "nanoseconds": [812, 1190, ...]}
//   {"op": "drop", "engine": "e1"}
//       -> {"ok": true}
//   anything wrong -> {"ok": false, "error": "..."}
//
// Each engine is its own instance of js/static-net-filtering.js (the module keeps its filters in
// module-level state, so one instance holds one engine): imported once per engine under its own
// URL query, which gives a module of its own; the modules it imports (parser, tries, public
// suffix list) are shared, as they hold no filters.
//
// `build` does what the extension does with a list's text: prune its `!#if` blocks for Firefox's
// environment, parse each line, compile the network filters (cosmetic ones are skipped: this is
// the network engine only), then load the compiled text into the engine, freeze it and optimize it
// fully. `seconds` is that work alone, timed here (decoding the base64 text and the pipe are outside
// it). `bytes` is the length of the engine's selfie (what the extension stores to start from, made
// after the timed part, as s14e-serialized text); `heapGrowthBytes` the growth of Node's heap and
// external memory (typed arrays, WebAssembly memory) across the build, the engine's new module
// instance included, each read after a full collection (node --expose-gc; without it, no
// collection); `rssGrowthBytes` the growth of the process's resident memory.
//
// `load` reads that selfie back into the engine, as the extension does on a browser's start, and
// times it.
//
// `resident` measures what loading the named engines adds to a fresh process, as the adblock-rust
// peer's `resident` does: it writes each engine's selfie to a file and has a fresh Node (this
// script with `--resident-after-load FILE...`, the same Node and flags) read each into an engine of
// its own. That process's resident memory (VmRSS) and its anonymous part (RssAnon), from
// /proc/self/status, are read before the selfies are read (uBO's modules loaded, the public suffix
// list parsed, one empty engine per file made: what the extension has before it reads its selfie)
// and after (the engines kept, the selfies' text let go), each after a full collection;
// `loadedBytes` is the selfies' bytes. glibc's threshold for mapping a block is fixed at its
// starting 128 KB in that process (GLIBC_TUNABLES, as `blockbench load` fixes it with `mallopt`:
// Sources/Engines/ResidentAfterLoad.swift), so that a block the reading freed is given back; its
// heaps' free pages are not given back after (Node cannot call `malloc_trim`), and V8's own
// heap, where the engines live, is emptied by the collection.
//
// `match` asks every named engine about each request, in order, and times each request here with
// process.hrtime: the time from before the request's filtering context is filled (its URL and its
// page's hostnames and domains found) to after the last engine's answer; the pipe is excluded. A
// request is blocked when an engine's matchRequest answers 1 (a block filter, not undone by an
// exception, or an `$important` one); 2 (an exception won) and 0 (no filter) are not blocked.
// `timerNanoseconds` in the hello is the median of timing nothing the same way: the clock's own
// share of each figure.
//
// The extension's WebAssembly tries and public suffix list are enabled as the extension enables
// them when the browser can run WebAssembly.
//
// `--version` prints uBO's version (its manifest's) and exits 0; when uBO's files are not found
// this script prints "not run: ..." naming the apt package and exits 3; when Node cannot load them,
// it prints why and exits 4. Both before reading anything.

import { readFileSync, existsSync, mkdtempSync, writeFileSync, rmSync, statSync } from 'node:fs';
import { domainToASCII, pathToFileURL, fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';

const PACKAGE = 'webext-ublock-origin-firefox';

// Where Debian's packages put the extension (the Firefox one; its Chromium sibling has the same
// files), first the folder given with --root.
const CANDIDATES = [
    '/usr/share/webext/ublock-origin',
    '/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/uBlock0@raymondhill.net',
    '/usr/share/chromium/extensions/ublock-origin',
];

// vAPI.webextFlavor.env in Firefox (js/vapi-common.js): the tokens `!#if` directives test.
const FIREFOX_ENV = ['ublock', 'webext', 'ipaddress', 'native_css_has', 'firefox', 'user_stylesheet', 'html_filtering'];

function findRoot(argv) {
    const given = argv.indexOf('--root');
    const folders = given >= 0 ? [argv[given + 1]] : CANDIDATES;
    return folders.find(folder => folder && existsSync(join(folder, 'js', 'static-net-filtering.js')));
}

function notRun(reason, status) {
    process.stdout.write(reason + '\n');
    process.exit(status);
}

const root = findRoot(process.argv);
if ( root === undefined ) {
    notRun(`not run: apt-get install ${PACKAGE} (uBlock Origin's static-net-filtering.js was not found in ` +
        (process.argv.includes('--root') ? process.argv[process.argv.indexOf('--root') + 1] : CANDIDATES.join(', ')) + ')', 3);
}
const VERSION = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8')).version;
const base = pathToFileURL(root + '/').href;

let sfp, io, textUtils, s14e, FilteringContext, publicSuffixList;
try {
    sfp = await import(base + 'js/static-filtering-parser.js');
    io = await import(base + 'js/static-filtering-io.js');
    textUtils = await import(base + 'js/text-utils.js');
    s14e = await import(base + 'js/s14e-serializer.js');
    ({ FilteringContext } = await import(base + 'js/filtering-context.js'));
    publicSuffixList = (await import(base + 'lib/publicsuffixlist/publicsuffixlist.js')).default;
} catch (error) {
    notRun(`not run: Node ${process.version} cannot load uBlock Origin's modules from ${root} (${error.message}); Node 20.19 or later loads them`, 4);
}

if ( process.argv.includes('--version') ) {
    process.stdout.write(VERSION + '\n');
    process.exit(0);
}

// WebAssembly modules read from the package's files (the extension fetches the same files).
function wasmModuleFetcher(path) {
    return WebAssembly.compile(readFileSync(join(root, path + '.wasm')));
}

publicSuffixList.parse(
    readFileSync(join(root, 'assets/thirdparties/publicsuffix.org/list/effective_tld_names.dat'), 'utf8'),
    domainToASCII);
await publicSuffixList.enableWASM(wasmModuleFetcher, 'lib/publicsuffixlist/wasm/');

/** engine name -> { snfe, selfie } */
const engines = new Map();
let instances = 0;

async function newEngine() {
    instances += 1;
    const snfe = (await import(base + 'js/static-net-filtering.js?engine=' + instances)).default;
    await snfe.enableWASM(wasmModuleFetcher, 'js/wasm/');
    return snfe;
}

function collect() {
    if ( typeof globalThis.gc === 'function' ) { globalThis.gc(); }
}

function heapBytes() {
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.external;
}

// One list's text compiled as the extension compiles it (network filters only).
function compileList(snfe, text) {
    const writer = new io.CompiledListWriter();
    const parser = new sfp.AstFilterParser({
        maxTokenLength: snfe.MAX_TOKEN_LENGTH,
        nativeCssHas: FIREFOX_ENV.includes('native_css_has'),
    });
    const compiler = snfe.createCompiler(parser);
    const lines = new textUtils.LineIterator(sfp.utils.preparser.prune(text, FIREFOX_ENV));
    compiler.start(writer);
    while ( lines.eot() === false ) {
        let line = lines.next();
        // A line ending in " \" continues on the next one when that one is indented by four spaces.
        while ( line.endsWith(' \\') ) {
            if ( lines.peek(4) !== '    ' ) { break; }
            line = line.slice(0, -2).trim() + lines.next().trim();
        }
        parser.parse(line);
        if ( parser.isFilter() === false || parser.hasError() ) { continue; }
        if ( parser.isNetworkFilter() === false ) { continue; }
        compiler.compile(parser, writer);
    }
    compiler.finish(writer);
    parser.finish();
    return writer.toString();
}

async function build(command) {
    const texts = command.lists.map(text => Buffer.from(text, 'base64').toString('utf8'));
    // A build again under the same name empties the old engine (a module is never unloaded) and
    // builds in a new instance, so every build starts from the same state and its growth counts
    // the whole engine.
    engines.get(command.engine)?.snfe.reset();
    engines.delete(command.engine);
    collect();
    const heapBefore = heapBytes();
    const rssBefore = process.memoryUsage.rss();
    const snfe = await newEngine();
    const started = process.hrtime.bigint();
    for ( const text of texts ) {
        snfe.fromCompiled(new io.CompiledListReader(compileList(snfe, text)));
    }
    snfe.freeze();
    snfe.optimize(0);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    collect();
    const heapGrowthBytes = heapBytes() - heapBefore;
    const rssGrowthBytes = process.memoryUsage.rss() - rssBefore;
    const selfie = s14e.serialize(snfe.serialize());
    engines.set(command.engine, { snfe, selfie });
    return {
        ok: true, seconds, bytes: Buffer.byteLength(selfie, 'utf8'), filters: snfe.getFilterCount(),
        heapGrowthBytes, rssGrowthBytes,
    };
}

// This process's (VmRSS, RssAnon) in bytes, from /proc/self/status.
function statusBytes() {
    const fields = {};
    for ( const line of readFileSync('/proc/self/status', 'utf8').split('\n') ) {
        const [ name, value ] = line.split(':');
        if ( name === 'VmRSS' || name === 'RssAnon' ) { fields[name] = parseInt(value, 10) * 1024; }
    }
    return [ fields.VmRSS, fields.RssAnon ];
}

// In a fresh process: each selfie at `paths` read into an engine of its own, memory around it.
async function residentAfterLoad(paths) {
    const loaded = [];
    for ( let i = 0; i < paths.length; i++ ) { loaded.push(await newEngine()); }
    collect();
    const [ residentBefore, anonymousBefore ] = statusBytes();
    for ( const [ index, path ] of paths.entries() ) {
        if ( loaded[index].unserialize(s14e.deserialize(readFileSync(path, 'utf8'))) !== true ) {
            throw new Error(`the selfie ${path} did not load`);
        }
    }
    collect();
    const [ residentAfter, anonymousAfter ] = statusBytes();
    const loadedBytes = paths.reduce((sum, path) => sum + statSync(path).size, 0);
    return { loadedBytes, residentBefore, residentAfter, anonymousBefore, anonymousAfter };
}

// The loading process's GLIBC_TUNABLES: this one's, with glibc's threshold for mapping a block
// fixed at its starting value.
function steadyMalloc() {
    return [ process.env.GLIBC_TUNABLES, 'glibc.malloc.mmap_threshold=131072' ].filter(Boolean).join(':');
}

function resident(command) {
    const folder = mkdtempSync(join(tmpdir(), 'ubo-peer-'));
    try {
        const paths = command.engines.map((name, index) => {
            const engine = engines.get(name);
            if ( engine === undefined ) { throw new Error(`no engine ${name}`); }
            const path = join(folder, `${index}.selfie`);
            writeFileSync(path, engine.selfie, 'utf8');
            return path;
        });
        const child = spawnSync(process.execPath, [
            ...process.execArgv, fileURLToPath(import.meta.url), '--root', root, '--resident-after-load', ...paths,
        ], { encoding: 'utf8', maxBuffer: 1 << 20, env: { ...process.env, GLIBC_TUNABLES: steadyMalloc() } });
        if ( child.status !== 0 ) {
            return { ok: false, error: `the loading process exited ${child.status}: ${(child.stderr || '').trim().slice(-300)}` };
        }
        return { ...JSON.parse(child.stdout.trim().split('\n').pop()), ok: true };
    } finally {
        rmSync(folder, { recursive: true, force: true });
    }
}

function load(command) {
    const engine = engines.get(command.engine);
    if ( engine === undefined ) { throw new Error(`no engine ${command.engine}`); }
    const started = process.hrtime.bigint();
    const loaded = engine.snfe.unserialize(s14e.deserialize(engine.selfie));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if ( loaded !== true ) { throw new Error(`the selfie of ${command.engine} did not load`); }
    return { ok: true, seconds };
}

function match(command) {
    const asked = command.engines.map(name => {
        const engine = engines.get(name);
        if ( engine === undefined ) { throw new Error(`no engine ${name}`); }
        return engine.snfe;
    });
    const context = new FilteringContext();
    const clock = process.hrtime.bigint;
    const blocked = [];
    const nanoseconds = [];
    for ( const [ url, originURL, type ] of command.requests ) {
        const started = clock();
        context.fromDetails({ originURL, url, type });
        let block = 0;
        for ( const snfe of asked ) {
            if ( snfe.matchRequest(context) === 1 ) { block = 1; }
        }
        const elapsed = clock() - started;
        blocked.push(block);
        nanoseconds.push(Number(elapsed));
    }
    return { ok: true, blocked, nanoseconds };
}

// The median of timing nothing, the way `match` times a request.
function timerNanoseconds() {
    const clock = process.hrtime.bigint;
    const samples = [];
    for ( let i = 0; i < 10001; i++ ) {
        const started = clock();
        samples.push(Number(clock() - started));
    }
    samples.sort((a, b) => a - b);
    return samples[samples.length >> 1];
}

async function answer(line) {
    let command;
    try {
        command = JSON.parse(line);
    } catch (error) {
        return { ok: false, error: `not JSON: ${error.message}` };
    }
    try {
        switch ( command.op ) {
        case 'hello':
            return { ok: true, ublock: VERSION, node: process.version, root, timerNanoseconds: timerNanoseconds() };
        case 'build':
            return await build(command);
        case 'load':
            return load(command);
        case 'resident':
            return resident(command);
        case 'match':
            return match(command);
        case 'drop':
            engines.get(command.engine)?.snfe.reset();
            engines.delete(command.engine);
            return { ok: true };
        default:
            return { ok: false, error: `unknown op ${JSON.stringify(command.op)}` };
        }
    } catch (error) {
        // The harness reports it; the process stays up.
        return { ok: false, error: `${error.name}: ${error.message}` };
    }
}

if ( process.argv.includes('--resident-after-load') ) {
    const paths = process.argv.slice(process.argv.indexOf('--resident-after-load') + 1);
    process.stdout.write(JSON.stringify(await residentAfterLoad(paths)) + '\n');
    process.exit(0);
}

// Lines in, one answer line out for each, in order.
const { createInterface } = await import('node:readline');
for await ( const line of createInterface({ input: process.stdin, crlfDelay: Infinity }) ) {
    if ( line.trim() === '' ) { continue; }
    process.stdout.write(JSON.stringify(await answer(line)) + '\n');
}
