/** Test data shared by the timeline's tests (not a test file itself). */
import type { WindowAnswer } from '@/timeline/types'

/** A window answer as the API writes it: events, merged blocks, a launch flow. */
export function answer(t0: number, t1: number, width: number, bucket: number, shift = 0): WindowAnswer {
  return {
    version: 1, origin_ns: 0, t0_ns: t0, t1_ns: t1, width_px: width, bucket_ns: bucket, truncated: false,
    tracks: [
      { id: 0, pid: '1', tid: '1', process_name: 'CPU', thread_name: 'main', is_device: false, depth: 3, events: 9 },
      { id: 2, pid: '0', tid: 'stream 7', process_name: 'GPU 0', thread_name: '', is_device: true, depth: 1, events: 3 },
    ],
    kinds: ['other', 'cpu_op', 'user_annotation', 'python_function', 'python', 'runtime', 'kernel'],
    // deliberately not in start order within a row, as long events and lone ones are appended
    events: {
      index: [10, 11, 12, 13, 14, 15],
      track: [0, 0, 0, 0, 2, 0],
      start_ns: [0, 100, 600, 150, 190, 400].map((x) => x + shift),
      dur_ns: [1000, 300, 200, 20, 50, 2],
      name: [0, 1, 1, 2, 3, 1],
      kind: [2, 1, 1, 5, 6, 1],
      depth: [0, 1, 1, 2, 0, 1],
    },
    blocks: {
      track: [0, 2], depth: [2, 0], start_ns: [500 + shift, 300 + shift], dur_ns: [64, 128],
      count: [7, 3], busy_ns: [40, 128],
    },
    flows: { src_track: [0, 0], src_ns: [150 + shift, 520 + shift], dst_track: [2, 2], dst_ns: [190 + shift, 300 + shift], cat: [-1, -1] },
    names: ['ProfilerStep#5', 'aten::conv2d', 'cudaLaunchKernel', 'volta_scudnn_128x64_relu'],
    // step charts: a value holds from its time to the next point's
    counters: [
      { group: '0', name: 'device_busy', device: '', unit: 'ratio', times: [0, 256, 512].map((x) => x + shift), values: [0.5, 1, 0] },
      { group: '0', name: 'memory_allocated', device: 'CUDA:0', unit: 'bytes', times: [0, 300, 700].map((x) => x + shift),
        values: [1024, 3 * 1024 ** 3, 2048] },
    ],
  }
}
