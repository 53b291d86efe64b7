import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The temporary directories a suite makes, removed together when it ends (in its afterAll). */
export class ScratchDirs {
  private readonly made: string[] = [];

  async make(prefix: string): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), prefix));
    this.made.push(dir);
    return dir;
  }

  async removeAll(): Promise<void> {
    await Promise.all(this.made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  }
}
