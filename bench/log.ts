/** Console output of the benchmark: status lines on stderr, progress bars that redraw on a terminal. */

const tty = process.stderr.isTTY === true;

export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** A progress display: redraws one line on a terminal, prints every quarter otherwise. */
export class Progress {
  private lastQuarter = -1;
  private readonly started = performance.now();
  constructor(private readonly label: string, private readonly total: number) {}

  update(done: number): void {
    const pct = this.total === 0 ? 100 : Math.floor((done * 100) / this.total);
    if (tty) {
      const width = 30;
      const filled = Math.round((pct / 100) * width);
      process.stderr.write(`\r[bench]   ${this.label.padEnd(28)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${this.total}`);
      return;
    }
    const quarter = Math.floor(pct / 25);
    if (quarter > this.lastQuarter) {
      this.lastQuarter = quarter;
      process.stderr.write(`[bench]   ${this.label}: ${done}/${this.total}\n`);
    }
  }

  done(note = ''): number {
    const ms = performance.now() - this.started;
    if (tty) process.stderr.write('\n');
    log(`  ${this.label}: ${this.total} in ${(ms / 1000).toFixed(1)} s${note ? ` ${note}` : ''}`);
    return ms;
  }
}
