// What web/js takes from outside its own modules, declared for the type check (jsconfig.json); no browser loads
// this file. web/js imports the wasm module and uPlot by their paths in the built site (public/build/), which do
// not exist beside the sources, and the loader, the classic bundles and corpus.js share a few globals.

// The Embind module (web/bindings.cpp), loose on purpose: its `_`-prefixed functions are wrapped, with the shapes of
// what they return, in engine.js (the page) and worker.js (the Run and the Inspector).
declare module '*/mha.js' {
  /** the instantiated module: the `_`-prefixed functions and the Run and Inspector classes */
  export type Mha = any;
  /** options: where the .wasm file is (locateFile), or the instantiation done by the caller (instantiateWasm: on
   *  a module already compiled, handing the instance to receive; returns {} as its exports come later) */
  const createMha: (options?: {
    locateFile?: (path: string, prefix: string) => string,
    instantiateWasm?: (imports: WebAssembly.Imports,
      receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => object,
  }) => Promise<Mha>;
  export default createMha;
}

// uPlot's ES module, copied from node_modules/uplot by scripts/vendor: its own declarations
declare module '*/vendor/uPlot.esm.js' {
  import uPlot from 'uplot';
  export default uPlot;
}

interface Window {
  /** corpus.js: the shipped corpus, for a page with an opaque origin (data.js) */
  MHA_CORPUS_TEXT?: string;
  /** mha.classic.js: the classic build's factory (runs.js builds a file:// worker from its source) */
  createMha?: () => Promise<any>;
  /** worker.source.js: the worker bundle as a function (runs.js, from file://) */
  mhaWorkerBundle?: () => void;
  /** loader.js: what main.js tells the loader once the core has loaded, or has failed to */
  mhaLoader?: { ready(): void; failed(error: unknown): void };
}

/** main.js: test and debugging hooks, the page's runs and a way to crash a run's worker (a global the tests name) */
declare var mhaDebug: {
  /** findings.js latestFinding: a panel's last published finding of this kind, or null */
  finding(kind: string): any;
  runs(): any[];
  breakRuns(): any[];
  inductionRuns(): any[];
  crash(key: string): void;
  /** which build of the core later workers load (kernels_module.js): 'simd128', or null for the best */
  kernels(k: string | null): void;
  /** whether later runs may be lent helpers on idle cores (runs.js setHelpers) */
  helpers(on: boolean): void;
  /** whether later runs may take the workers of finished runs (runs.js setWorkerReuse) */
  reuseWorkers(on: boolean): void;
  /** every later set-up that many ms slower, in its worker (runs.js slowSetUps) */
  slowSetUps(ms: number): void;
  /** every later set-up fails in its worker after it began (runs.js breakSetUps): 'throw', 'die', or null for none */
  breakSetUps(kind: 'throw' | 'die' | null): void;
  /** costs.js pageCosts: the main thread's milliseconds by part so far */
  costs(): Record<string, number>;
};
