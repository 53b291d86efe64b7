import { describe, expect, it } from '@jest/globals';
import { createToolNamer } from './tool-names.js';

describe('createToolNamer', () => {
  it('namespaces by server and cleans characters models refuse', () => {
    const name = createToolNamer();
    expect(name('files', 'read')).toBe('files__read');
    expect(name('my server', 'get.weather/v2')).toBe('my_server__get_weather_v2');
  });

  it('keeps names unique and within 64 characters', () => {
    const name = createToolNamer();
    const long = 'x'.repeat(80);
    const first = name('s', long);
    const second = name('s', `${long}y`);
    expect(first).toHaveLength(64);
    expect(second).toHaveLength(64);
    expect(second).not.toBe(first);
    expect(name('a b', 't')).toBe('a_b__t');
    expect(name('a.b', 't')).toBe('a_b__t_2');
  });
});
