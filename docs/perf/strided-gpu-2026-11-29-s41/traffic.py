# The DRAM traffic of padded f32 problems on the H200 (call 2's ncu counters) against a model:
# reads = the input's distinct 64-byte blocks + every output sector the sub-tensor covers only
# in part (read to merge the bytes it keeps); writes = the output's sectors. Strides as `xpose
# run --pad 7` makes them (`xpose explain ... --pad 7` prints them). Uses session 40's bound.py.
import os, sys
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'typed-cpu-2026-11-29-s40'))
from bound import pieces

# case: extents, input strides, output strides (per input dim), ncu: us, DRAM read / write MB,
# and the plain problem's us, read, write
CASES = {
    '(17,)*6 perm (0,5,1,4,3,2)': ([17] * 6, [1, 19, 437, 8303, 157757, 3155140],
                                  [1, 399, 3511200, 175560, 8778, 21],
                                  (112.38, 172.76, 106.75), (73.89, 97.01, 77.35)),
    '(4,27,24,7,22,60) perm (1,3,2,4,0,5)': ([4, 27, 24, 7, 22, 60],
                                            [1, 6, 198, 5148, 46332, 1158300],
                                            [202275, 1, 279, 31, 8091, 1415925],
                                            (116.13, 194.74, 97.55), (66.91, 95.91, 76.09)),
    '(8,)*8 perm (5,3,7,6,2,1,0,4)': ([8] * 8, [10 ** k for k in range(8)],
                                     [1000000, 100000, 10000, 10, 10000000, 1, 1000, 100],
                                     (91.62, 186.78, 87.23), (44.38, 67.18, 45.17)),
    '(799,160,196) perm (1,2,0)': ([799, 160, 196], [1, 807, 130734], [34645, 1, 169],
                                   (101.22, 112.00, 87.47), (59.97, 100.24, 80.63)),
}

print('| case | data MB | model read / write MB | ncu read / write MB | padded us (TB/s) | plain us (TB/s) |')
print('| --- | ---: | --- | --- | --- | --- |')
for name, (ext, si, so, pad, plain) in CASES.items():
    blocks, _ = pieces(ext, si, 4, 64)
    sectors, whole = pieces(ext, so, 4, 32)
    data = np.prod(ext) * 4 / 1e6
    read = blocks * 64 / 1e6 + (sectors - whole) * 32 / 1e6
    write = sectors * 32 / 1e6
    print(f'| {name} | {data:.1f} | {read:.1f} / {write:.1f} | {pad[1]:.1f} / {pad[2]:.1f} | '
          f'{pad[0]:.1f} ({(pad[1] + pad[2]) / pad[0]:.2f}) | {plain[0]:.1f} '
          f'({(plain[1] + plain[2]) / plain[0]:.2f}) |')
