import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** Pids of the processes whose command line mentions `text` (e.g. DynamoDB Local servers on a state's database). */
export async function processesMentioning(text: string): Promise<number[]> {
  const { stdout } = await promisify(execFile)('ps', ['-e', '-ww', '-o', 'pid=', '-o', 'args=']);
  return stdout
    .split('\n')
    .filter((line) => line.includes(text) && !line.includes('ps -e'))
    .map((line) => Number.parseInt(line.trim(), 10))
    .filter((pid) => Number.isSafeInteger(pid) && pid !== process.pid);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
