/**
 * `--watch`: audit again when a file the last run read changes (the configuration, a module, or a project
 * file a module imports). Folders are watched rather than files, so an editor that saves by replacing the
 * file is still seen. Each run loads its modules afresh, in a new audit process. A folder the system will not
 * watch (no inotify watch or instance left: `ENOSPC`, `EMFILE`) has its files polled instead, and a line says so.
 */
import { type FSWatcher, unwatchFile, watch, watchFile } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** What `watchRuns` needs. */
export interface WatchOptions {
  /** One run; fills `watched` with the files it read; returns its exit code. */
  readonly run: (watched: Set<string>) => Promise<number>;
  /** Prints an error a run threw (the watch goes on). */
  readonly report: (error: unknown) => void;
  readonly streams: { readonly stderr: { write(chunk: string): unknown } };
  /** Ends the watch (SIGINT does too). */
  readonly signal?: AbortSignal;
}

/**
 * Runs, then runs again on every change to a file the last run read, until SIGINT or the signal.
 *
 * @returns the exit code of the last run
 */
export async function watchRuns(options: WatchOptions): Promise<number> {
  const { stderr } = options.streams;
  let watched = new Set<string>();
  let last = 2;
  const once = async (): Promise<void> => {
    const files = new Set<string>();
    try {
      last = await options.run(files);
      watched = files;
    } catch (error) {
      options.report(error);
      last = 2;
      // A run that stopped early read fewer files: keep watching the last run's too, so fixing one re-runs.
      watched = new Set([...watched, ...files]);
    }
    stderr.write(
      `gate-audit: watching ${watched.size} file${watched.size === 1 ? '' : 's'} for changes (ctrl-c to stop)\n`,
    );
  };
  await once();
  return new Promise<number>((done) => {
    let watchers: FSWatcher[] = [];
    let polled: string[] = [];
    let timer: NodeJS.Timeout | undefined;
    let running = false;
    let pending = false;
    let stopped = false;
    const unarm = (): void => {
      for (const watcher of watchers) watcher.close();
      watchers = [];
      for (const file of polled) unwatchFile(file);
      polled = [];
    };
    const arm = (): void => {
      unarm();
      const byFolder = new Map<string, Set<string>>();
      for (const file of watched) {
        const names = byFolder.get(dirname(file)) ?? new Set<string>();
        names.add(basename(file));
        byFolder.set(dirname(file), names);
      }
      for (const [folder, names] of byFolder) {
        try {
          watchers.push(
            watch(folder, (_event, name) => {
              if (name === null || names.has(name.toString()) || watched.has(join(folder, name.toString()))) changed();
            }),
          );
        } catch (error) {
          // A folder that went away: the next run names what is missing.
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
          stderr.write(
            `gate-audit: cannot watch ${folder} (${(error as Error).message}); polling its ${names.size} file${names.size === 1 ? '' : 's'} instead\n`,
          );
          for (const name of names) {
            const file = join(folder, name);
            watchFile(file, { interval: 500 }, (now, before) => {
              if (now.mtimeMs !== before.mtimeMs || now.size !== before.size) changed();
            });
            polled.push(file);
          }
        }
      }
    };
    const rerun = async (): Promise<void> => {
      if (stopped) return;
      if (running) {
        pending = true;
        return;
      }
      running = true;
      stderr.write('gate-audit: a watched file changed, auditing again\n');
      await once();
      running = false;
      if (stopped) return;
      arm();
      if (pending) {
        pending = false;
        void rerun();
      }
    };
    function changed(): void {
      clearTimeout(timer);
      timer = setTimeout(() => void rerun(), 150);
    }
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      unarm();
      process.off('SIGINT', stop);
      done(last);
    };
    arm();
    process.once('SIGINT', stop);
    if (options.signal?.aborted === true) stop();
    options.signal?.addEventListener('abort', stop, { once: true });
  });
}
