const MIB = 1024 ** 2;
const GIB = 1024 ** 3;

/** `5 MiB`, `2 GiB`, `24.6 MiB`: a size or a limit as errors and the API's descriptions state it. */
export function byteSize(bytes: number): string {
  const [unit, size] = bytes >= GIB ? ['GiB', bytes / GIB] : ['MiB', bytes / MIB];
  return `${Math.round(size * 10) / 10} ${unit}`;
}
