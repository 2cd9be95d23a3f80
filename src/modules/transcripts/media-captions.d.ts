/**
 * The parts of media-captions this module uses. The package's own declarations import their
 * files without extensions, which `moduleResolution: nodenext` cannot follow.
 */
declare module 'media-captions' {
  export type VTTNode =
    | { type: 'text'; data: string }
    | { type: 'v'; voice: string; children: VTTNode[] }
    | { type: 'c' | 'i' | 'b' | 'u' | 'ruby' | 'rt' | 'lang' | 'timestamp'; children: VTTNode[] };

  export interface VTTCue {
    id: string;
    startTime: number;
    endTime: number;
    text: string;
  }

  export function parseText(
    text: string,
    options?: { type?: 'vtt' | 'srt'; strict?: boolean },
  ): Promise<{ cues: VTTCue[] }>;
  export function parseVTTTimestamp(timestamp: string): number | null;
  export function tokenizeVTTCue(cue: VTTCue): VTTNode[];
}
