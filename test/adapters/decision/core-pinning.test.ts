import { describe, expect, it } from 'vitest';
import { allowedCores, pinnedLaunch } from '../../../src/adapters/decision/zen-process/core-pinning.ts';

const status = (list: string) =>
  `Name:\tnode\nCpus_allowed:\tff\nCpus_allowed_list:\t${list}\nMems_allowed:\t1\n`;

describe('allowedCores', () => {
  it('reads ranges and single cores of the affinity list', () => {
    expect(allowedCores(status('0-3,6,8-9'))).toEqual([0, 1, 2, 3, 6, 8, 9]);
    expect(allowedCores(status('1'))).toEqual([1]);
  });

  it('knows no core when the list is missing or malformed', () => {
    expect(allowedCores('Name:\tnode\n')).toEqual([]);
    expect(allowedCores(status('3-1'))).toEqual([]);
    expect(allowedCores(status('0-x'))).toEqual([]);
  });

  it('reads this process’s own list on Linux', () => {
    expect(allowedCores().length).toBeGreaterThan(0);
  });
});

describe('pinnedLaunch', () => {
  it('starts each process through taskset on the next allowed core, with Node’s flags after node', () => {
    const launches = [0, 1, 2].map((started) => pinnedLaunch(started, ['--flag'], [2, 5]));

    expect(launches).toEqual([
      { execPath: '/usr/bin/taskset', execArgv: ['-c', '2', process.execPath, '--flag'] },
      { execPath: '/usr/bin/taskset', execArgv: ['-c', '5', process.execPath, '--flag'] },
      { execPath: '/usr/bin/taskset', execArgv: ['-c', '2', process.execPath, '--flag'] },
    ]);
  });

  it('starts Node plainly when the process may use one core, or the cores are unknown', () => {
    expect(pinnedLaunch(0, ['--flag'], [3])).toEqual({ execArgv: ['--flag'] });
    expect(pinnedLaunch(1, [], [])).toEqual({ execArgv: [] });
  });
});
