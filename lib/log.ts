/**
 * Progress output for long CLI work: each step says what it does, how many records and how
 * long it took; a bar is drawn only on a terminal (plain lines otherwise, e.g. under cron).
 */
import cliProgress from 'cli-progress';

const quiet = () => process.env.VULNINTEL_QUIET === '1';

export function info(message: string): void {
  if (!quiet()) process.stderr.write(`${message}\n`);
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** Runs one named step and prints `✓ name: detail (time)`. */
export async function step<T>(name: string, fn: () => Promise<T>, detail?: (result: T) => string): Promise<T> {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  info(`▶ ${name}`);
  const result = await fn();
  const extra = detail ? `: ${detail(result)}` : '';
  const rss = Math.round(process.memoryUsage.rss() / 1048576);
  info(`✓ ${name}${extra} (${formatDuration(performance.now() - started)}, ${coresBusy(cpuBefore, started)}, rss ${rss} MB)`);
  return result;
}

/**
 * The CPU time of the whole process (every thread: workers, DuckDB's) since `cpuBefore`, per
 * second of wall time since `started`: how many cores the step kept busy, which says whether
 * it waits on one thread.
 */
export function coresBusy(cpuBefore: NodeJS.CpuUsage, started: number): string {
  const used = process.cpuUsage(cpuBefore);
  const wallMicros = (performance.now() - started) * 1000;
  return `cpu ${wallMicros > 0 ? ((used.user + used.system) / wallMicros).toFixed(1) : '0.0'}×`;
}

export interface Progress {
  /** Advances by `n` units (records, bytes). */
  tick(n?: number): void;
  /** Sets the expected total once known. */
  setTotal(total: number): void;
  stop(): void;
}

/** A progress bar on a TTY, a line every few seconds otherwise. */
export function progress(label: string, total = 0, unit = 'records'): Progress {
  let done = 0;
  if (quiet()) return { tick: (n = 1) => void (done += n), setTotal: () => {}, stop: () => {} };
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `  ${label} [{bar}] {percentage}% {value}/{total} ${unit} | {speed}/s | ETA {eta_formatted}`,
        stream: process.stderr,
        hideCursor: true,
        etaBuffer: 50,
        fps: 5,
      },
      cliProgress.Presets.shades_classic,
    );
    const started = performance.now();
    bar.start(total || 1, 0, { speed: 0 });
    return {
      tick(n = 1) {
        done += n;
        if (done > (bar.getTotal() ?? 0)) bar.setTotal(done);
        bar.update(done, { speed: Math.round(done / ((performance.now() - started) / 1000 || 1)) });
      },
      setTotal: (t) => bar.setTotal(t),
      stop: () => bar.stop(),
    };
  }
  let last = performance.now();
  let expected = total;
  return {
    tick(n = 1) {
      done += n;
      const now = performance.now();
      if (now - last > 5000) {
        last = now;
        info(`  ${label}: ${formatCount(done)}${expected ? `/${formatCount(expected)}` : ''} ${unit}`);
      }
    },
    setTotal: (t) => void (expected = t),
    stop: () => {},
  };
}
