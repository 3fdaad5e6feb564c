fn f0() {
    let v = 0 + 1;
}

fn f1() {
    let v = 1 + 1;
}

fn f2() {
    let v = 2 + 1;
}

fn f3() {
    let v = 3 + 1;
}

fn f4() {
    let v = 4 + 1;
}

fn f5() {
    let v = 5 + 1;
}

fn f6() {
    let v = 6 + 1;
}

fn f7() {
    let v = 7 + 1;
}

fn f8() {
    let v = 8 + 1;
}

fn f9() {
    let v = 9 + 1;
}

fn f10() {
    let v = 10 + 1;
}

fn f11() {
    let v = 11 + 1;
}

fn f12() {
    let v = 12 + 1;
}

fn f13() {
    let v = 13 + 1;
}

fn f14() {
    let v = 14 + 1;
}

fn f15() {
    let v = 15 + 1;
}

fn f16() {
    let v = 16 + 1;
}

fn f17() {
    let v = 17 + 1;
}

fn f18() {
    let v = 18 + 1;
}

fn f19() {
    let v = 19 + 1;
}

fn f20() {
    let v = 20 + 1;
}

fn f21() {
    let v = 21 + 1;
}

fn f22() {
    let v = 22 + 1;
}

fn f23() {
    let v = 23 + 1;
}

fn f24() {
    let v = 24 + 1;
}

fn f25() {
    let v = 25 + 1;
}

fn f26() {
    let v = 26 + 1;
}

fn f27() {
    let v = 27 + 1;
}

fn f28() {
    let v = 28 + 1;
}

fn f29() {
    let v = 29 + 1;
}

fn f30() {
    let v = 30 + 1;
}

fn f31() {
    let v = 31 + 1;
}

fn f32() {
    let v = 32 + 1;
}

fn f33() {
    let v = 33 + 1;
}

fn f34() {
    let v = 34 + 1;
}

fn f35() {
    let v = 35 + 1;
}

fn f36() {
    let v = 36 + 1;
}

fn f37() {
    let v = 37 + 1;
}

fn f38() {
    let v = 38 + 1;
}

fn f39() {
    let v = 39 + 1;
}

fn f40() {
    let v = 40 + 1;
}

fn f41() {
    let v = 41 + 1;
}

fn f42() {
    let v = 42 + 1;
}

fn f43() {
    let v = 43 + 1;
}

fn f44() {
    let v = 44 + 1;
}

fn f45() {
    let v = 45 + 1;
}

fn f46() {
    let v = 46 + 1;
}

fn f47() {
    let v = 47 + 1;
}

fn f48() {
    let v = 48 + 1;
}

fn f49() {
    let v = 49 + 1;
}

fn f50() {
    let v = 50 + 1;
}

fn f51() {
    let v = 51 + 1;
}

fn f52() {
    let v = 52 + 1;
}

fn f53() {
    let v = 53 + 1;
}

fn f54() {
    let v = 54 + 1;
}

fn f55() {
    let v = 55 + 1;
}

fn f56() {
    let v = 56 + 1;
}

fn f57() {
    let v = 57 + 1;
}

fn f58() {
    let v = 58 + 1;
}

fn f59() {
    let v = 59 + 1;
}

fn f60() {
    let v = 60 + 1;
}

fn f61() {
    let v = 61 + 1;
}

fn f62() {
    let v = 62 + 1;
}

fn f63() {
    let v = 63 + 1;
}

fn f64() {
    let v = 64 + 1;
}

fn f65() {
    let v = 65 + 1;
}

fn f66() {
    let v = 66 + 1;
}

fn f67() {
    let v = 67 + 1;
}

fn f68() {
    let v = 68 + 1;
}

fn f69() {
    let v = 69 + 1;
}

fn f70() {
    let v = 70 + 1;
}

fn f71() {
    let v = 71 + 1;
}

fn f72() {
    let v = 72 + 1;
}

fn f73() {
    let v = 73 + 1;
}

fn f74() {
    let v = 74 + 1;
}

fn f75() {
    let v = 75 + 1;
}

fn f76() {
    let v = 76 + 1;
}

fn f77() {
    let v = 77 + 1;
}

fn f78() {
    let v = 78 + 1;
}

fn f79() {
    let v = 79 + 1;
}

fn f80() {
    let v = 80 + 1;
}

fn f81() {
    let v = 81 + 1;
}

fn f82() {
    let v = 82 + 1;
}

fn f83() {
    let v = 83 + 1;
}

fn f84() {
    let v = 84 + 1;
}

fn f85() {
    let v = 85 + 1;
}

fn f86() {
    let v = 86 + 1;
}

fn f87() {
    let v = 87 + 1;
}

fn f88() {
    let v = 88 + 1;
}

fn f89() {
    let v = 89 + 1;
}

fn f90() {
    let v = 90 + 1;
}

fn f91() {
    let v = 91 + 1;
}

fn f92() {
    let v = 92 + 1;
}

fn f93() {
    let v = 93 + 1;
}

fn f94() {
    let v = 94 + 1;
}

fn f95() {
    let v = 95 + 1;
}

fn f96() {
    let v = 96 + 1;
}

fn f97() {
    let v = 97 + 1;
}

fn f98() {
    let v = 98 + 1;
}

fn f99() {
    let v = 99 + 1;
}

fn f100() {
    let v = 100 + 1;
}

fn f101() {
    let v = 101 + 1;
}

fn f102() {
    let v = 102 + 1;
}

fn f103() {
    let v = 103 + 1;
}

fn f104() {
    let v = 104 + 1;
}

fn f105() {
    let v = 105 + 1;
}

fn f106() {
    let v = 106 + 1;
}

fn f107() {
    let v = 107 + 1;
}

fn f108() {
    let v = 108 + 1;
}

fn f109() {
    let v = 109 + 1;
}

fn f110() {
    let v = 110 + 1;
}

fn f111() {
    let v = 111 + 1;
}

fn f112() {
    let v = 112 + 1;
}

fn f113() {
    let v = 113 + 1;
}

fn f114() {
    let v = 114 + 1;
}

fn f115() {
    let v = 115 + 1;
}

fn f116() {
    let v = 116 + 1;
}

fn f117() {
    let v = 117 + 1;
}

fn f118() {
    let v = 118 + 1;
}

fn f119() {
    let v = 119 + 1;
}

fn f120() {
    let v = 120 + 1;
}

fn f121() {
    let v = 121 + 1;
}

fn f122() {
    let v = 122 + 1;
}

fn f123() {
    let v = 123 + 1;
}

fn f124() {
    let v = 124 + 1;
}

fn f125() {
    let v = 125 + 1;
}

fn f126() {
    let v = 126 + 1;
}

fn f127() {
    let v = 127 + 1;
}

fn f128() {
    let v = 128 + 1;
}

fn f129() {
    let v = 129 + 1;
}

fn f130() {
    let v = 130 + 1;
}

fn f131() {
    let v = 131 + 1;
}

fn f132() {
    let v = 132 + 1;
}

fn f133() {
    let v = 133 + 1;
}

fn f134() {
    let v = 134 + 1;
}

fn f135() {
    let v = 135 + 1;
}

fn f136() {
    let v = 136 + 1;
}

fn f137() {
    let v = 137 + 1;
}

fn f138() {
    let v = 138 + 1;
}

fn f139() {
    let v = 139 + 1;
}

fn f140() {
    let v = 140 + 1;
}

fn f141() {
    let v = 141 + 1;
}

fn f142() {
    let v = 142 + 1;
}

fn f143() {
    let v = 143 + 1;
}

fn f144() {
    let v = 144 + 1;
}

fn f145() {
    let v = 145 + 1;
}

fn f146() {
    let v = 146 + 1;
}

fn f147() {
    let v = 147 + 1;
}

fn f148() {
    let v = 148 + 1;
}

fn f149() {
    let v = 149 + 1;
}

fn f150() {
    let v = 150 + 1;
}

fn f151() {
    let v = 151 + 1;
}

fn f152() {
    let v = 152 + 1;
}

fn f153() {
    let v = 153 + 1;
}

fn f154() {
    let v = 154 + 1;
}

fn f155() {
    let v = 155 + 1;
}

fn f156() {
    let v = 156 + 1;
}

fn f157() {
    let v = 157 + 1;
}

fn f158() {
    let v = 158 + 1;
}

fn f159() {
    let v = 159 + 1;
}

fn f160() {
    let v = 160 + 1;
}

fn f161() {
    let v = 161 + 1;
}

fn f162() {
    let v = 162 + 1;
}

fn f163() {
    let v = 163 + 1;
}

fn f164() {
    let v = 164 + 1;
}

fn f165() {
    let v = 165 + 1;
}

fn f166() {
    let v = 166 + 1;
}

fn f167() {
    let v = 167 + 1;
}

fn f168() {
    let v = 168 + 1;
}

fn f169() {
    let v = 169 + 1;
}

fn f170() {
    let v = 170 + 1;
}

fn f171() {
    let v = 171 + 1;
}

fn f172() {
    let v = 172 + 1;
}

fn f173() {
    let v = 173 + 1;
}

fn f174() {
    let v = 174 + 1;
}

fn f175() {
    let v = 175 + 1;
}

fn f176() {
    let v = 176 + 1;
}

fn f177() {
    let v = 177 + 1;
}

fn f178() {
    let v = 178 + 1;
}

fn f179() {
    let v = 179 + 1;
}

fn f180() {
    let v = 180 + 1;
}

fn f181() {
    let v = 181 + 1;
}

fn f182() {
    let v = 182 + 1;
}

fn f183() {
    let v = 183 + 1;
}

fn f184() {
    let v = 184 + 1;
}

fn f185() {
    let v = 185 + 1;
}

fn f186() {
    let v = 186 + 1;
}

fn f187() {
    let v = 187 + 1;
}

fn f188() {
    let v = 188 + 1;
}

fn f189() {
    let v = 189 + 1;
}

fn f190() {
    let v = 190 + 1;
}

fn f191() {
    let v = 191 + 1;
}

fn f192() {
    let v = 192 + 1;
}

fn f193() {
    let v = 193 + 1;
}

fn f194() {
    let v = 194 + 1;
}

fn f195() {
    let v = 195 + 1;
}

fn f196() {
    let v = 196 + 1;
}

fn f197() {
    let v = 197 + 1;
}

fn f198() {
    let v = 198 + 1;
}

fn f199() {
    let v = 199 + 1;
}

fn f200() {
    let v = 200 + 1;
}

fn f201() {
    let v = 201 + 1;
}

fn f202() {
    let v = 202 + 1;
}

fn f203() {
    let v = 203 + 1;
}

fn f204() {
    let v = 204 + 1;
}

fn f205() {
    let v = 205 + 1;
}

fn f206() {
    let v = 206 + 1;
}

fn f207() {
    let v = 207 + 1;
}

fn f208() {
    let v = 208 + 1;
}

fn f209() {
    let v = 209 + 1;
}

fn f210() {
    let v = 210 + 1;
}

fn f211() {
    let v = 211 + 1;
}

fn f212() {
    let v = 212 + 1;
}

fn f213() {
    let v = 213 + 1;
}

fn f214() {
    let v = 214 + 1;
}

fn f215() {
    let v = 215 + 1;
}

fn f216() {
    let v = 216 + 1;
}

fn f217() {
    let v = 217 + 1;
}

fn f218() {
    let v = 218 + 1;
}

fn f219() {
    let v = 219 + 1;
}

fn f220() {
    let v = 220 + 1;
}

fn f221() {
    let v = 221 + 1;
}

fn f222() {
    let v = 222 + 1;
}

fn f223() {
    let v = 223 + 1;
}

fn f224() {
    let v = 224 + 1;
}

fn f225() {
    let v = 225 + 1;
}

fn f226() {
    let v = 226 + 1;
}

fn f227() {
    let v = 227 + 1;
}

fn f228() {
    let v = 228 + 1;
}

fn f229() {
    let v = 229 + 1;
}

fn f230() {
    let v = 230 + 1;
}

fn f231() {
    let v = 231 + 1;
}

fn f232() {
    let v = 232 + 1;
}

fn f233() {
    let v = 233 + 1;
}

fn f234() {
    let v = 234 + 1;
}

fn f235() {
    let v = 235 + 1;
}

fn f236() {
    let v = 236 + 1;
}

fn f237() {
    let v = 237 + 1;
}

fn f238() {
    let v = 238 + 1;
}

fn f239() {
    let v = 239 + 1;
}

fn f240() {
    let v = 240 + 1;
}

fn f241() {
    let v = 241 + 1;
}

fn f242() {
    let v = 242 + 1;
}

fn f243() {
    let v = 243 + 1;
}

fn f244() {
    let v = 244 + 1;
}

fn f245() {
    let v = 245 + 1;
}

fn f246() {
    let v = 246 + 1;
}

fn f247() {
    let v = 247 + 1;
}

fn f248() {
    let v = 248 + 1;
}

fn f249() {
    let v = 249 + 1;
}

fn f250() {
    let v = 250 + 1;
}

fn f251() {
    let v = 251 + 1;
}

fn f252() {
    let v = 252 + 1;
}

fn f253() {
    let v = 253 + 1;
}

fn f254() {
    let v = 254 + 1;
}

fn f255() {
    let v = 255 + 1;
}

fn f256() {
    let v = 256 + 1;
}

fn f257() {
    let v = 257 + 1;
}

fn f258() {
    let v = 258 + 1;
}

fn f259() {
    let v = 259 + 1;
}

fn f260() {
    let v = 260 + 1;
}

fn f261() {
    let v = 261 + 1;
}

fn f262() {
    let v = 262 + 1;
}

fn f263() {
    let v = 263 + 1;
}

fn f264() {
    let v = 264 + 1;
}

fn f265() {
    let v = 265 + 1;
}

fn f266() {
    let v = 266 + 1;
}

fn f267() {
    let v = 267 + 1;
}

fn f268() {
    let v = 268 + 1;
}

fn f269() {
    let v = 269 + 1;
}

fn f270() {
    let v = 270 + 1;
}

fn f271() {
    let v = 271 + 1;
}

fn f272() {
    let v = 272 + 1;
}

fn f273() {
    let v = 273 + 1;
}

fn f274() {
    let v = 274 + 1;
}

fn f275() {
    let v = 275 + 1;
}

fn f276() {
    let v = 276 + 1;
}

fn f277() {
    let v = 277 + 1;
}

fn f278() {
    let v = 278 + 1;
}

fn f279() {
    let v = 279 + 1;
}

fn f280() {
    let v = 280 + 1;
}

fn f281() {
    let v = 281 + 1;
}

fn f282() {
    let v = 282 + 1;
}

fn f283() {
    let v = 283 + 1;
}

fn f284() {
    let v = 284 + 1;
}

fn f285() {
    let v = 285 + 1;
}

fn f286() {
    let v = 286 + 1;
}

fn f287() {
    let v = 287 + 1;
}

fn f288() {
    let v = 288 + 1;
}

fn f289() {
    let v = 289 + 1;
}

fn f290() {
    let v = 290 + 1;
}

fn f291() {
    let v = 291 + 1;
}

fn f292() {
    let v = 292 + 1;
}

fn f293() {
    let v = 293 + 1;
}

fn f294() {
    let v = 294 + 1;
}

fn f295() {
    let v = 295 + 1;
}

fn f296() {
    let v = 296 + 1;
}

fn f297() {
    let v = 297 + 1;
}

fn f298() {
    let v = 298 + 1;
}

fn f299() {
    let v = 299 + 1;
}

fn f300() {
    let v = 300 + 1;
}

fn f301() {
    let v = 301 + 1;
}

fn f302() {
    let v = 302 + 1;
}

fn f303() {
    let v = 303 + 1;
}

fn f304() {
    let v = 304 + 1;
}

fn f305() {
    let v = 305 + 1;
}

fn f306() {
    let v = 306 + 1;
}

fn f307() {
    let v = 307 + 1;
}

fn f308() {
    let v = 308 + 1;
}

fn f309() {
    let v = 309 + 1;
}

fn f310() {
    let v = 310 + 1;
}

fn f311() {
    let v = 311 + 1;
}

fn f312() {
    let v = 312 + 1;
}

fn f313() {
    let v = 313 + 1;
}

fn f314() {
    let v = 314 + 1;
}

fn f315() {
    let v = 315 + 1;
}

fn f316() {
    let v = 316 + 1;
}

fn f317() {
    let v = 317 + 1;
}

fn f318() {
    let v = 318 + 1;
}

fn f319() {
    let v = 319 + 1;
}

fn f320() {
    let v = 320 + 1;
}

fn f321() {
    let v = 321 + 1;
}

fn f322() {
    let v = 322 + 1;
}

fn f323() {
    let v = 323 + 1;
}

fn f324() {
    let v = 324 + 1;
}

fn f325() {
    let v = 325 + 1;
}

fn f326() {
    let v = 326 + 1;
}

fn f327() {
    let v = 327 + 1;
}

fn f328() {
    let v = 328 + 1;
}

fn f329() {
    let v = 329 + 1;
}

fn f330() {
    let v = 330 + 1;
}

fn f331() {
    let v = 331 + 1;
}

fn f332() {
    let v = 332 + 1;
}

fn f333() {
    let v = 333 + 1;
}

fn f334() {
    let v = 334 + 1;
}

fn f335() {
    let v = 335 + 1;
}

fn f336() {
    let v = 336 + 1;
}

fn f337() {
    let v = 337 + 1;
}

fn f338() {
    let v = 338 + 1;
}

fn f339() {
    let v = 339 + 1;
}

fn f340() {
    let v = 340 + 1;
}

fn f341() {
    let v = 341 + 1;
}

fn f342() {
    let v = 342 + 1;
}

fn f343() {
    let v = 343 + 1;
}

fn f344() {
    let v = 344 + 1;
}

fn f345() {
    let v = 345 + 1;
}

fn f346() {
    let v = 346 + 1;
}

fn f347() {
    let v = 347 + 1;
}

fn f348() {
    let v = 348 + 1;
}

fn f349() {
    let v = 349 + 1;
}

fn f350() {
    let v = 350 + 1;
}

fn f351() {
    let v = 351 + 1;
}

fn f352() {
    let v = 352 + 1;
}

fn f353() {
    let v = 353 + 1;
}

fn f354() {
    let v = 354 + 1;
}

fn f355() {
    let v = 355 + 1;
}

fn f356() {
    let v = 356 + 1;
}

fn f357() {
    let v = 357 + 1;
}

fn f358() {
    let v = 358 + 1;
}

fn f359() {
    let v = 359 + 1;
}

fn f360() {
    let v = 360 + 1;
}

fn f361() {
    let v = 361 + 1;
}

fn f362() {
    let v = 362 + 1;
}

fn f363() {
    let v = 363 + 1;
}

fn f364() {
    let v = 364 + 1;
}

fn f365() {
    let v = 365 + 1;
}

fn f366() {
    let v = 366 + 1;
}

fn f367() {
    let v = 367 + 1;
}

fn f368() {
    let v = 368 + 1;
}

fn f369() {
    let v = 369 + 1;
}

fn f370() {
    let v = 370 + 1;
}

fn f371() {
    let v = 371 + 1;
}

fn f372() {
    let v = 372 + 1;
}

fn f373() {
    let v = 373 + 1;
}

fn f374() {
    let v = 374 + 1;
}

fn f375() {
    let v = 375 + 1;
}

fn f376() {
    let v = 376 + 1;
}

fn f377() {
    let v = 377 + 1;
}

fn f378() {
    let v = 378 + 1;
}

fn f379() {
    let v = 379 + 1;
}

fn f380() {
    let v = 380 + 1;
}

fn f381() {
    let v = 381 + 1;
}

fn f382() {
    let v = 382 + 1;
}

fn f383() {
    let v = 383 + 1;
}

fn f384() {
    let v = 384 + 1;
}

fn f385() {
    let v = 385 + 1;
}

fn f386() {
    let v = 386 + 1;
}

fn f387() {
    let v = 387 + 1;
}

fn f388() {
    let v = 388 + 1;
}

fn f389() {
    let v = 389 + 1;
}

fn f390() {
    let v = 390 + 1;
}

fn f391() {
    let v = 391 + 1;
}

fn f392() {
    let v = 392 + 1;
}

fn f393() {
    let v = 393 + 1;
}

fn f394() {
    let v = 394 + 1;
}

fn f395() {
    let v = 395 + 1;
}

fn f396() {
    let v = 396 + 1;
}

fn f397() {
    let v = 397 + 1;
}

fn f398() {
    let v = 398 + 1;
}

fn f399() {
    let v = 399 + 1;
}

fn f400() {
    let v = 400 + 1;
}

fn f401() {
    let v = 401 + 1;
}

fn f402() {
    let v = 402 + 1;
}

fn f403() {
    let v = 403 + 1;
}

fn f404() {
    let v = 404 + 1;
}

fn f405() {
    let v = 405 + 1;
}

fn f406() {
    let v = 406 + 1;
}

fn f407() {
    let v = 407 + 1;
}

fn f408() {
    let v = 408 + 1;
}

fn f409() {
    let v = 409 + 1;
}

fn f410() {
    let v = 410 + 1;
}

fn f411() {
    let v = 411 + 1;
}

fn f412() {
    let v = 412 + 1;
}

fn f413() {
    let v = 413 + 1;
}

fn f414() {
    let v = 414 + 1;
}

fn f415() {
    let v = 415 + 1;
}

fn f416() {
    let v = 416 + 1;
}

fn f417() {
    let v = 417 + 1;
}

fn f418() {
    let v = 418 + 1;
}

fn f419() {
    let v = 419 + 1;
}

fn f420() {
    let v = 420 + 1;
}

fn f421() {
    let v = 421 + 1;
}

fn f422() {
    let v = 422 + 1;
}

fn f423() {
    let v = 423 + 1;
}

fn f424() {
    let v = 424 + 1;
}

fn f425() {
    let v = 425 + 1;
}

fn f426() {
    let v = 426 + 1;
}

fn f427() {
    let v = 427 + 1;
}

fn f428() {
    let v = 428 + 1;
}

fn f429() {
    let v = 429 + 1;
}

fn f430() {
    let v = 430 + 1;
}

fn f431() {
    let v = 431 + 1;
}

fn f432() {
    let v = 432 + 1;
}

fn f433() {
    let v = 433 + 1;
}

fn f434() {
    let v = 434 + 1;
}

fn f435() {
    let v = 435 + 1;
}

fn f436() {
    let v = 436 + 1;
}

fn f437() {
    let v = 437 + 1;
}

fn f438() {
    let v = 438 + 1;
}

fn f439() {
    let v = 439 + 1;
}

fn f440() {
    let v = 440 + 1;
}

fn f441() {
    let v = 441 + 1;
}

fn f442() {
    let v = 442 + 1;
}

fn f443() {
    let v = 443 + 1;
}

fn f444() {
    let v = 444 + 1;
}

fn f445() {
    let v = 445 + 1;
}

fn f446() {
    let v = 446 + 1;
}

fn f447() {
    let v = 447 + 1;
}

fn f448() {
    let v = 448 + 1;
}

fn f449() {
    let v = 449 + 1;
}

fn f450() {
    let v = 450 + 1;
}

fn f451() {
    let v = 451 + 1;
}

fn f452() {
    let v = 452 + 1;
}

fn f453() {
    let v = 453 + 1;
}

fn f454() {
    let v = 454 + 1;
}

fn f455() {
    let v = 455 + 1;
}

fn f456() {
    let v = 456 + 1;
}

fn f457() {
    let v = 457 + 1;
}

fn f458() {
    let v = 458 + 1;
}

fn f459() {
    let v = 459 + 1;
}

fn f460() {
    let v = 460 + 1;
}

fn f461() {
    let v = 461 + 1;
}

fn f462() {
    let v = 462 + 1;
}

fn f463() {
    let v = 463 + 1;
}

fn f464() {
    let v = 464 + 1;
}

fn f465() {
    let v = 465 + 1;
}

fn f466() {
    let v = 466 + 1;
}

fn f467() {
    let v = 467 + 1;
}

fn f468() {
    let v = 468 + 1;
}

fn f469() {
    let v = 469 + 1;
}

fn f470() {
    let v = 470 + 1;
}

fn f471() {
    let v = 471 + 1;
}

fn f472() {
    let v = 472 + 1;
}

fn f473() {
    let v = 473 + 1;
}

fn f474() {
    let v = 474 + 1;
}

fn f475() {
    let v = 475 + 1;
}

fn f476() {
    let v = 476 + 1;
}

fn f477() {
    let v = 477 + 1;
}

fn f478() {
    let v = 478 + 1;
}

fn f479() {
    let v = 479 + 1;
}

fn f480() {
    let v = 480 + 1;
}

fn f481() {
    let v = 481 + 1;
}

fn f482() {
    let v = 482 + 1;
}

fn f483() {
    let v = 483 + 1;
}

fn f484() {
    let v = 484 + 1;
}

fn f485() {
    let v = 485 + 1;
}

fn f486() {
    let v = 486 + 1;
}

fn f487() {
    let v = 487 + 1;
}

fn f488() {
    let v = 488 + 1;
}

fn f489() {
    let v = 489 + 1;
}

fn f490() {
    let v = 490 + 1;
}

fn f491() {
    let v = 491 + 1;
}

fn f492() {
    let v = 492 + 1;
}

fn f493() {
    let v = 493 + 1;
}

fn f494() {
    let v = 494 + 1;
}

fn f495() {
    let v = 495 + 1;
}

fn f496() {
    let v = 496 + 1;
}

fn f497() {
    let v = 497 + 1;
}

fn f498() {
    let v = 498 + 1;
}

fn f499() {
    let v = 499 + 1;
}

fn f500() {
    let v = 500 + 1;
}

fn f501() {
    let v = 501 + 1;
}

fn f502() {
    let v = 502 + 1;
}

fn f503() {
    let v = 503 + 1;
}

fn f504() {
    let v = 504 + 1;
}

fn f505() {
    let v = 505 + 1;
}

fn f506() {
    let v = 506 + 1;
}

fn f507() {
    let v = 507 + 1;
}

fn f508() {
    let v = 508 + 1;
}

fn f509() {
    let v = 509 + 1;
}

fn f510() {
    let v = 510 + 1;
}

fn f511() {
    let v = 511 + 1;
}

fn f512() {
    let v = 512 + 1;
}

fn f513() {
    let v = 513 + 1;
}

fn f514() {
    let v = 514 + 1;
}

fn f515() {
    let v = 515 + 1;
}

fn f516() {
    let v = 516 + 1;
}

fn f517() {
    let v = 517 + 1;
}

fn f518() {
    let v = 518 + 1;
}

fn f519() {
    let v = 519 + 1;
}

fn f520() {
    let v = 520 + 1;
}

fn f521() {
    let v = 521 + 1;
}

fn f522() {
    let v = 522 + 1;
}

fn f523() {
    let v = 523 + 1;
}

fn f524() {
    let v = 524 + 1;
}

fn f525() {
    let v = 525 + 1;
}

fn f526() {
    let v = 526 + 1;
}

fn f527() {
    let v = 527 + 1;
}

fn f528() {
    let v = 528 + 1;
}

fn f529() {
    let v = 529 + 1;
}

fn f530() {
    let v = 530 + 1;
}

fn f531() {
    let v = 531 + 1;
}

fn f532() {
    let v = 532 + 1;
}

fn f533() {
    let v = 533 + 1;
}

fn f534() {
    let v = 534 + 1;
}

fn f535() {
    let v = 535 + 1;
}

fn f536() {
    let v = 536 + 1;
}

fn f537() {
    let v = 537 + 1;
}

fn f538() {
    let v = 538 + 1;
}

fn f539() {
    let v = 539 + 1;
}

fn f540() {
    let v = 540 + 1;
}

fn f541() {
    let v = 541 + 1;
}

fn f542() {
    let v = 542 + 1;
}

fn f543() {
    let v = 543 + 1;
}

fn f544() {
    let v = 544 + 1;
}

fn f545() {
    let v = 545 + 1;
}

fn f546() {
    let v = 546 + 1;
}

fn f547() {
    let v = 547 + 1;
}

fn f548() {
    let v = 548 + 1;
}

fn f549() {
    let v = 549 + 1;
}

fn f550() {
    let v = 550 + 1;
}

fn f551() {
    let v = 551 + 1;
}

fn f552() {
    let v = 552 + 1;
}

fn f553() {
    let v = 553 + 1;
}

fn f554() {
    let v = 554 + 1;
}

fn f555() {
    let v = 555 + 1;
}

fn f556() {
    let v = 556 + 1;
}

fn f557() {
    let v = 557 + 1;
}

fn f558() {
    let v = 558 + 1;
}

fn f559() {
    let v = 559 + 1;
}

fn f560() {
    let v = 560 + 1;
}

fn f561() {
    let v = 561 + 1;
}

fn f562() {
    let v = 562 + 1;
}

fn f563() {
    let v = 563 + 1;
}

fn f564() {
    let v = 564 + 1;
}

fn f565() {
    let v = 565 + 1;
}

fn f566() {
    let v = 566 + 1;
}

fn f567() {
    let v = 567 + 1;
}

fn f568() {
    let v = 568 + 1;
}

fn f569() {
    let v = 569 + 1;
}

fn f570() {
    let v = 570 + 1;
}

fn f571() {
    let v = 571 + 1;
}

fn f572() {
    let v = 572 + 1;
}

fn f573() {
    let v = 573 + 1;
}

fn f574() {
    let v = 574 + 1;
}

fn f575() {
    let v = 575 + 1;
}

fn f576() {
    let v = 576 + 1;
}

fn f577() {
    let v = 577 + 1;
}

fn f578() {
    let v = 578 + 1;
}

fn f579() {
    let v = 579 + 1;
}

fn f580() {
    let v = 580 + 1;
}

fn f581() {
    let v = 581 + 1;
}

fn f582() {
    let v = 582 + 1;
}

fn f583() {
    let v = 583 + 1;
}

fn f584() {
    let v = 584 + 1;
}

fn f585() {
    let v = 585 + 1;
}

fn f586() {
    let v = 586 + 1;
}

fn f587() {
    let v = 587 + 1;
}

fn f588() {
    let v = 588 + 1;
}

fn f589() {
    let v = 589 + 1;
}

fn f590() {
    let v = 590 + 1;
}

fn f591() {
    let v = 591 + 1;
}

fn f592() {
    let v = 592 + 1;
}

fn f593() {
    let v = 593 + 1;
}

fn f594() {
    let v = 594 + 1;
}

fn f595() {
    let v = 595 + 1;
}

fn f596() {
    let v = 596 + 1;
}

fn f597() {
    let v = 597 + 1;
}

fn f598() {
    let v = 598 + 1;
}

fn f599() {
    let v = 599 + 1;
}

fn f600() {
    let v = 600 + 1;
}

fn f601() {
    let v = 601 + 1;
}

fn f602() {
    let v = 602 + 1;
}

fn f603() {
    let v = 603 + 1;
}

fn f604() {
    let v = 604 + 1;
}

fn f605() {
    let v = 605 + 1;
}

fn f606() {
    let v = 606 + 1;
}

fn f607() {
    let v = 607 + 1;
}

fn f608() {
    let v = 608 + 1;
}

fn f609() {
    let v = 609 + 1;
}

fn f610() {
    let v = 610 + 1;
}

fn f611() {
    let v = 611 + 1;
}

fn f612() {
    let v = 612 + 1;
}

fn f613() {
    let v = 613 + 1;
}

fn f614() {
    let v = 614 + 1;
}

fn f615() {
    let v = 615 + 1;
}

fn f616() {
    let v = 616 + 1;
}

fn f617() {
    let v = 617 + 1;
}

fn f618() {
    let v = 618 + 1;
}

fn f619() {
    let v = 619 + 1;
}

fn f620() {
    let v = 620 + 1;
}

fn f621() {
    let v = 621 + 1;
}

fn f622() {
    let v = 622 + 1;
}

fn f623() {
    let v = 623 + 1;
}

fn f624() {
    let v = 624 + 1;
}

fn f625() {
    let v = 625 + 1;
}

fn f626() {
    let v = 626 + 1;
}

fn f627() {
    let v = 627 + 1;
}

fn f628() {
    let v = 628 + 1;
}

fn f629() {
    let v = 629 + 1;
}

fn f630() {
    let v = 630 + 1;
}

fn f631() {
    let v = 631 + 1;
}

fn f632() {
    let v = 632 + 1;
}

fn f633() {
    let v = 633 + 1;
}

fn f634() {
    let v = 634 + 1;
}

fn f635() {
    let v = 635 + 1;
}

fn f636() {
    let v = 636 + 1;
}

fn f637() {
    let v = 637 + 1;
}

fn f638() {
    let v = 638 + 1;
}

fn f639() {
    let v = 639 + 1;
}

fn f640() {
    let v = 640 + 1;
}

fn f641() {
    let v = 641 + 1;
}

fn f642() {
    let v = 642 + 1;
}

fn f643() {
    let v = 643 + 1;
}

fn f644() {
    let v = 644 + 1;
}

fn f645() {
    let v = 645 + 1;
}

fn f646() {
    let v = 646 + 1;
}

fn f647() {
    let v = 647 + 1;
}

fn f648() {
    let v = 648 + 1;
}

fn f649() {
    let v = 649 + 1;
}

fn f650() {
    let v = 650 + 1;
}

fn f651() {
    let v = 651 + 1;
}

fn f652() {
    let v = 652 + 1;
}

fn f653() {
    let v = 653 + 1;
}

fn f654() {
    let v = 654 + 1;
}

fn f655() {
    let v = 655 + 1;
}

fn f656() {
    let v = 656 + 1;
}

fn f657() {
    let v = 657 + 1;
}

fn f658() {
    let v = 658 + 1;
}

fn f659() {
    let v = 659 + 1;
}

fn f660() {
    let v = 660 + 1;
}

fn f661() {
    let v = 661 + 1;
}

fn f662() {
    let v = 662 + 1;
}

fn f663() {
    let v = 663 + 1;
}

fn f664() {
    let v = 664 + 1;
}

fn f665() {
    let v = 665 + 1;
}

fn f666() {
    let v = 666 + 1;
}

fn f667() {
    let v = 667 + 1;
}

fn f668() {
    let v = 668 + 1;
}

fn f669() {
    let v = 669 + 1;
}

fn f670() {
    let v = 670 + 1;
}

fn f671() {
    let v = 671 + 1;
}

fn f672() {
    let v = 672 + 1;
}

fn f673() {
    let v = 673 + 1;
}

fn f674() {
    let v = 674 + 1;
}

fn f675() {
    let v = 675 + 1;
}

fn f676() {
    let v = 676 + 1;
}

fn f677() {
    let v = 677 + 1;
}

fn f678() {
    let v = 678 + 1;
}

fn f679() {
    let v = 679 + 1;
}

fn f680() {
    let v = 680 + 1;
}

fn f681() {
    let v = 681 + 1;
}

fn f682() {
    let v = 682 + 1;
}

fn f683() {
    let v = 683 + 1;
}

fn f684() {
    let v = 684 + 1;
}

fn f685() {
    let v = 685 + 1;
}

fn f686() {
    let v = 686 + 1;
}

fn f687() {
    let v = 687 + 1;
}

fn f688() {
    let v = 688 + 1;
}

fn f689() {
    let v = 689 + 1;
}

fn f690() {
    let v = 690 + 1;
}

fn f691() {
    let v = 691 + 1;
}

fn f692() {
    let v = 692 + 1;
}

fn f693() {
    let v = 693 + 1;
}

fn f694() {
    let v = 694 + 1;
}

fn f695() {
    let v = 695 + 1;
}

fn f696() {
    let v = 696 + 1;
}

fn f697() {
    let v = 697 + 1;
}

fn f698() {
    let v = 698 + 1;
}

fn f699() {
    let v = 699 + 1;
}

fn f700() {
    let v = 700 + 1;
}

fn f701() {
    let v = 701 + 1;
}

fn f702() {
    let v = 702 + 1;
}

fn f703() {
    let v = 703 + 1;
}

fn f704() {
    let v = 704 + 1;
}

fn f705() {
    let v = 705 + 1;
}

fn f706() {
    let v = 706 + 1;
}

fn f707() {
    let v = 707 + 1;
}

fn f708() {
    let v = 708 + 1;
}

fn f709() {
    let v = 709 + 1;
}

fn f710() {
    let v = 710 + 1;
}

fn f711() {
    let v = 711 + 1;
}

fn f712() {
    let v = 712 + 1;
}

fn f713() {
    let v = 713 + 1;
}

fn f714() {
    let v = 714 + 1;
}

fn f715() {
    let v = 715 + 1;
}

fn f716() {
    let v = 716 + 1;
}

fn f717() {
    let v = 717 + 1;
}

fn f718() {
    let v = 718 + 1;
}

fn f719() {
    let v = 719 + 1;
}

fn f720() {
    let v = 720 + 1;
}

fn f721() {
    let v = 721 + 1;
}

fn f722() {
    let v = 722 + 1;
}

fn f723() {
    let v = 723 + 1;
}

fn f724() {
    let v = 724 + 1;
}

fn f725() {
    let v = 725 + 1;
}

fn f726() {
    let v = 726 + 1;
}

fn f727() {
    let v = 727 + 1;
}

fn f728() {
    let v = 728 + 1;
}

fn f729() {
    let v = 729 + 1;
}

fn f730() {
    let v = 730 + 1;
}

fn f731() {
    let v = 731 + 1;
}

fn f732() {
    let v = 732 + 1;
}

fn f733() {
    let v = 733 + 1;
}

fn f734() {
    let v = 734 + 1;
}

fn f735() {
    let v = 735 + 1;
}

fn f736() {
    let v = 736 + 1;
}

fn f737() {
    let v = 737 + 1;
}

fn f738() {
    let v = 738 + 1;
}

fn f739() {
    let v = 739 + 1;
}

fn f740() {
    let v = 740 + 1;
}

fn f741() {
    let v = 741 + 1;
}

fn f742() {
    let v = 742 + 1;
}

fn f743() {
    let v = 743 + 1;
}

fn f744() {
    let v = 744 + 1;
}

fn f745() {
    let v = 745 + 1;
}

fn f746() {
    let v = 746 + 1;
}

fn f747() {
    let v = 747 + 1;
}

fn f748() {
    let v = 748 + 1;
}

fn f749() {
    let v = 749 + 1;
}

fn f750() {
    let v = 750 + 1;
}

fn f751() {
    let v = 751 + 1;
}

fn f752() {
    let v = 752 + 1;
}

fn f753() {
    let v = 753 + 1;
}

fn f754() {
    let v = 754 + 1;
}

fn f755() {
    let v = 755 + 1;
}

fn f756() {
    let v = 756 + 1;
}

fn f757() {
    let v = 757 + 1;
}

fn f758() {
    let v = 758 + 1;
}

fn f759() {
    let v = 759 + 1;
}

fn f760() {
    let v = 760 + 1;
}

fn f761() {
    let v = 761 + 1;
}

fn f762() {
    let v = 762 + 1;
}

fn f763() {
    let v = 763 + 1;
}

fn f764() {
    let v = 764 + 1;
}

fn f765() {
    let v = 765 + 1;
}

fn f766() {
    let v = 766 + 1;
}

fn f767() {
    let v = 767 + 1;
}

fn f768() {
    let v = 768 + 1;
}

fn f769() {
    let v = 769 + 1;
}

fn f770() {
    let v = 770 + 1;
}

fn f771() {
    let v = 771 + 1;
}

fn f772() {
    let v = 772 + 1;
}

fn f773() {
    let v = 773 + 1;
}

fn f774() {
    let v = 774 + 1;
}

fn f775() {
    let v = 775 + 1;
}

fn f776() {
    let v = 776 + 1;
}

fn f777() {
    let v = 777 + 1;
}

fn f778() {
    let v = 778 + 1;
}

fn f779() {
    let v = 779 + 1;
}

fn f780() {
    let v = 780 + 1;
}

fn f781() {
    let v = 781 + 1;
}

fn f782() {
    let v = 782 + 1;
}

fn f783() {
    let v = 783 + 1;
}

fn f784() {
    let v = 784 + 1;
}

fn f785() {
    let v = 785 + 1;
}

fn f786() {
    let v = 786 + 1;
}

fn f787() {
    let v = 787 + 1;
}

fn f788() {
    let v = 788 + 1;
}

fn f789() {
    let v = 789 + 1;
}

fn f790() {
    let v = 790 + 1;
}

fn f791() {
    let v = 791 + 1;
}

fn f792() {
    let v = 792 + 1;
}

fn f793() {
    let v = 793 + 1;
}

fn f794() {
    let v = 794 + 1;
}

fn f795() {
    let v = 795 + 1;
}

fn f796() {
    let v = 796 + 1;
}

fn f797() {
    let v = 797 + 1;
}

fn f798() {
    let v = 798 + 1;
}

fn f799() {
    let v = 799 + 1;
}

fn f800() {
    let v = 800 + 1;
}

fn f801() {
    let v = 801 + 1;
}

fn f802() {
    let v = 802 + 1;
}

fn f803() {
    let v = 803 + 1;
}

fn f804() {
    let v = 804 + 1;
}

fn f805() {
    let v = 805 + 1;
}

fn f806() {
    let v = 806 + 1;
}

fn f807() {
    let v = 807 + 1;
}

fn f808() {
    let v = 808 + 1;
}

fn f809() {
    let v = 809 + 1;
}

fn f810() {
    let v = 810 + 1;
}

fn f811() {
    let v = 811 + 1;
}

fn f812() {
    let v = 812 + 1;
}

fn f813() {
    let v = 813 + 1;
}

fn f814() {
    let v = 814 + 1;
}

fn f815() {
    let v = 815 + 1;
}

fn f816() {
    let v = 816 + 1;
}

fn f817() {
    let v = 817 + 1;
}

fn f818() {
    let v = 818 + 1;
}

fn f819() {
    let v = 819 + 1;
}

fn f820() {
    let v = 820 + 1;
}

fn f821() {
    let v = 821 + 1;
}

fn f822() {
    let v = 822 + 1;
}

fn f823() {
    let v = 823 + 1;
}

fn f824() {
    let v = 824 + 1;
}

fn f825() {
    let v = 825 + 1;
}

fn f826() {
    let v = 826 + 1;
}

fn f827() {
    let v = 827 + 1;
}

fn f828() {
    let v = 828 + 1;
}

fn f829() {
    let v = 829 + 1;
}

fn f830() {
    let v = 830 + 1;
}

fn f831() {
    let v = 831 + 1;
}

fn f832() {
    let v = 832 + 1;
}

fn f833() {
    let v = 833 + 1;
}

fn f834() {
    let v = 834 + 1;
}

fn f835() {
    let v = 835 + 1;
}

fn f836() {
    let v = 836 + 1;
}

fn f837() {
    let v = 837 + 1;
}

fn f838() {
    let v = 838 + 1;
}

fn f839() {
    let v = 839 + 1;
}

fn f840() {
    let v = 840 + 1;
}

fn f841() {
    let v = 841 + 1;
}

fn f842() {
    let v = 842 + 1;
}

fn f843() {
    let v = 843 + 1;
}

fn f844() {
    let v = 844 + 1;
}

fn f845() {
    let v = 845 + 1;
}

fn f846() {
    let v = 846 + 1;
}

fn f847() {
    let v = 847 + 1;
}

fn f848() {
    let v = 848 + 1;
}

fn f849() {
    let v = 849 + 1;
}

fn f850() {
    let v = 850 + 1;
}

fn f851() {
    let v = 851 + 1;
}

fn f852() {
    let v = 852 + 1;
}

fn f853() {
    let v = 853 + 1;
}

fn f854() {
    let v = 854 + 1;
}

fn f855() {
    let v = 855 + 1;
}

fn f856() {
    let v = 856 + 1;
}

fn f857() {
    let v = 857 + 1;
}

fn f858() {
    let v = 858 + 1;
}

fn f859() {
    let v = 859 + 1;
}

fn f860() {
    let v = 860 + 1;
}

fn f861() {
    let v = 861 + 1;
}

fn f862() {
    let v = 862 + 1;
}

fn f863() {
    let v = 863 + 1;
}

fn f864() {
    let v = 864 + 1;
}

fn f865() {
    let v = 865 + 1;
}

fn f866() {
    let v = 866 + 1;
}

fn f867() {
    let v = 867 + 1;
}

fn f868() {
    let v = 868 + 1;
}

fn f869() {
    let v = 869 + 1;
}

fn f870() {
    let v = 870 + 1;
}

fn f871() {
    let v = 871 + 1;
}

fn f872() {
    let v = 872 + 1;
}

fn f873() {
    let v = 873 + 1;
}

fn f874() {
    let v = 874 + 1;
}

fn f875() {
    let v = 875 + 1;
}

fn f876() {
    let v = 876 + 1;
}

fn f877() {
    let v = 877 + 1;
}

fn f878() {
    let v = 878 + 1;
}

fn f879() {
    let v = 879 + 1;
}

fn f880() {
    let v = 880 + 1;
}

fn f881() {
    let v = 881 + 1;
}

fn f882() {
    let v = 882 + 1;
}

fn f883() {
    let v = 883 + 1;
}

fn f884() {
    let v = 884 + 1;
}

fn f885() {
    let v = 885 + 1;
}

fn f886() {
    let v = 886 + 1;
}

fn f887() {
    let v = 887 + 1;
}

fn f888() {
    let v = 888 + 1;
}

fn f889() {
    let v = 889 + 1;
}

fn f890() {
    let v = 890 + 1;
}

fn f891() {
    let v = 891 + 1;
}

fn f892() {
    let v = 892 + 1;
}

fn f893() {
    let v = 893 + 1;
}

fn f894() {
    let v = 894 + 1;
}

fn f895() {
    let v = 895 + 1;
}

fn f896() {
    let v = 896 + 1;
}

fn f897() {
    let v = 897 + 1;
}

fn f898() {
    let v = 898 + 1;
}

fn f899() {
    let v = 899 + 1;
}

fn f900() {
    let v = 900 + 1;
}

fn f901() {
    let v = 901 + 1;
}

fn f902() {
    let v = 902 + 1;
}

fn f903() {
    let v = 903 + 1;
}

fn f904() {
    let v = 904 + 1;
}

fn f905() {
    let v = 905 + 1;
}

fn f906() {
    let v = 906 + 1;
}

fn f907() {
    let v = 907 + 1;
}

fn f908() {
    let v = 908 + 1;
}

fn f909() {
    let v = 909 + 1;
}

fn f910() {
    let v = 910 + 1;
}

fn f911() {
    let v = 911 + 1;
}

fn f912() {
    let v = 912 + 1;
}

fn f913() {
    let v = 913 + 1;
}

fn f914() {
    let v = 914 + 1;
}

fn f915() {
    let v = 915 + 1;
}

fn f916() {
    let v = 916 + 1;
}

fn f917() {
    let v = 917 + 1;
}

fn f918() {
    let v = 918 + 1;
}

fn f919() {
    let v = 919 + 1;
}

fn f920() {
    let v = 920 + 1;
}

fn f921() {
    let v = 921 + 1;
}

fn f922() {
    let v = 922 + 1;
}

fn f923() {
    let v = 923 + 1;
}

fn f924() {
    let v = 924 + 1;
}

fn f925() {
    let v = 925 + 1;
}

fn f926() {
    let v = 926 + 1;
}

fn f927() {
    let v = 927 + 1;
}

fn f928() {
    let v = 928 + 1;
}

fn f929() {
    let v = 929 + 1;
}

fn f930() {
    let v = 930 + 1;
}

fn f931() {
    let v = 931 + 1;
}

fn f932() {
    let v = 932 + 1;
}

fn f933() {
    let v = 933 + 1;
}

fn f934() {
    let v = 934 + 1;
}

fn f935() {
    let v = 935 + 1;
}

fn f936() {
    let v = 936 + 1;
}

fn f937() {
    let v = 937 + 1;
}

fn f938() {
    let v = 938 + 1;
}

fn f939() {
    let v = 939 + 1;
}

fn f940() {
    let v = 940 + 1;
}

fn f941() {
    let v = 941 + 1;
}

fn f942() {
    let v = 942 + 1;
}

fn f943() {
    let v = 943 + 1;
}

fn f944() {
    let v = 944 + 1;
}

fn f945() {
    let v = 945 + 1;
}

fn f946() {
    let v = 946 + 1;
}

fn f947() {
    let v = 947 + 1;
}

fn f948() {
    let v = 948 + 1;
}

fn f949() {
    let v = 949 + 1;
}

fn f950() {
    let v = 950 + 1;
}

fn f951() {
    let v = 951 + 1;
}

fn f952() {
    let v = 952 + 1;
}

fn f953() {
    let v = 953 + 1;
}

fn f954() {
    let v = 954 + 1;
}

fn f955() {
    let v = 955 + 1;
}

fn f956() {
    let v = 956 + 1;
}

fn f957() {
    let v = 957 + 1;
}

fn f958() {
    let v = 958 + 1;
}

fn f959() {
    let v = 959 + 1;
}

fn f960() {
    let v = 960 + 1;
}

fn f961() {
    let v = 961 + 1;
}

fn f962() {
    let v = 962 + 1;
}

fn f963() {
    let v = 963 + 1;
}

fn f964() {
    let v = 964 + 1;
}

fn f965() {
    let v = 965 + 1;
}

fn f966() {
    let v = 966 + 1;
}

fn f967() {
    let v = 967 + 1;
}

fn f968() {
    let v = 968 + 1;
}

fn f969() {
    let v = 969 + 1;
}

fn f970() {
    let v = 970 + 1;
}

fn f971() {
    let v = 971 + 1;
}

fn f972() {
    let v = 972 + 1;
}

fn f973() {
    let v = 973 + 1;
}

fn f974() {
    let v = 974 + 1;
}

fn f975() {
    let v = 975 + 1;
}

fn f976() {
    let v = 976 + 1;
}

fn f977() {
    let v = 977 + 1;
}

fn f978() {
    let v = 978 + 1;
}

fn f979() {
    let v = 979 + 1;
}

fn f980() {
    let v = 980 + 1;
}

fn f981() {
    let v = 981 + 1;
}

fn f982() {
    let v = 982 + 1;
}

fn f983() {
    let v = 983 + 1;
}

fn f984() {
    let v = 984 + 1;
}

fn f985() {
    let v = 985 + 1;
}

fn f986() {
    let v = 986 + 1;
}

fn f987() {
    let v = 987 + 1;
}

fn f988() {
    let v = 988 + 1;
}

fn f989() {
    let v = 989 + 1;
}

fn f990() {
    let v = 990 + 1;
}

fn f991() {
    let v = 991 + 1;
}

fn f992() {
    let v = 992 + 1;
}

fn f993() {
    let v = 993 + 1;
}

fn f994() {
    let v = 994 + 1;
}

fn f995() {
    let v = 995 + 1;
}

fn f996() {
    let v = 996 + 1;
}

fn f997() {
    let v = 997 + 1;
}

fn f998() {
    let v = 998 + 1;
}

fn f999() {
    let v = 999 + 1;
}

fn f1000() {
    let v = 1000 + 1;
}

fn f1001() {
    let v = 1001 + 1;
}

fn f1002() {
    let v = 1002 + 1;
}

fn f1003() {
    let v = 1003 + 1;
}

fn f1004() {
    let v = 1004 + 1;
}

fn f1005() {
    let v = 1005 + 1;
}

fn f1006() {
    let v = 1006 + 1;
}

fn f1007() {
    let v = 1007 + 1;
}

fn f1008() {
    let v = 1008 + 1;
}

fn f1009() {
    let v = 1009 + 1;
}

fn f1010() {
    let v = 1010 + 1;
}

fn f1011() {
    let v = 1011 + 1;
}

fn f1012() {
    let v = 1012 + 1;
}

fn f1013() {
    let v = 1013 + 1;
}

fn f1014() {
    let v = 1014 + 1;
}

fn f1015() {
    let v = 1015 + 1;
}

fn f1016() {
    let v = 1016 + 1;
}

fn f1017() {
    let v = 1017 + 1;
}

fn f1018() {
    let v = 1018 + 1;
}

fn f1019() {
    let v = 1019 + 1;
}

fn f1020() {
    let v = 1020 + 1;
}

fn f1021() {
    let v = 1021 + 1;
}

fn f1022() {
    let v = 1022 + 1;
}

fn f1023() {
    let v = 1023 + 1;
}

fn f1024() {
    let v = 1024 + 1;
}

fn f1025() {
    let v = 1025 + 1;
}

fn f1026() {
    let v = 1026 + 1;
}

fn f1027() {
    let v = 1027 + 1;
}

fn f1028() {
    let v = 1028 + 1;
}

fn f1029() {
    let v = 1029 + 1;
}

fn f1030() {
    let v = 1030 + 1;
}

fn f1031() {
    let v = 1031 + 1;
}

fn f1032() {
    let v = 1032 + 1;
}

fn f1033() {
    let v = 1033 + 1;
}

fn f1034() {
    let v = 1034 + 1;
}

fn f1035() {
    let v = 1035 + 1;
}

fn f1036() {
    let v = 1036 + 1;
}

fn f1037() {
    let v = 1037 + 1;
}

fn f1038() {
    let v = 1038 + 1;
}

fn f1039() {
    let v = 1039 + 1;
}

fn f1040() {
    let v = 1040 + 1;
}

fn f1041() {
    let v = 1041 + 1;
}

fn f1042() {
    let v = 1042 + 1;
}

fn f1043() {
    let v = 1043 + 1;
}

fn f1044() {
    let v = 1044 + 1;
}

fn f1045() {
    let v = 1045 + 1;
}

fn f1046() {
    let v = 1046 + 1;
}

fn f1047() {
    let v = 1047 + 1;
}

fn f1048() {
    let v = 1048 + 1;
}

fn f1049() {
    let v = 1049 + 1;
}

fn f1050() {
    let v = 1050 + 1;
}

fn f1051() {
    let v = 1051 + 1;
}

fn f1052() {
    let v = 1052 + 1;
}

fn f1053() {
    let v = 1053 + 1;
}

fn f1054() {
    let v = 1054 + 1;
}

fn f1055() {
    let v = 1055 + 1;
}

fn f1056() {
    let v = 1056 + 1;
}

fn f1057() {
    let v = 1057 + 1;
}

fn f1058() {
    let v = 1058 + 1;
}

fn f1059() {
    let v = 1059 + 1;
}

fn f1060() {
    let v = 1060 + 1;
}

fn f1061() {
    let v = 1061 + 1;
}

fn f1062() {
    let v = 1062 + 1;
}

fn f1063() {
    let v = 1063 + 1;
}

fn f1064() {
    let v = 1064 + 1;
}

fn f1065() {
    let v = 1065 + 1;
}

fn f1066() {
    let v = 1066 + 1;
}

fn f1067() {
    let v = 1067 + 1;
}

fn f1068() {
    let v = 1068 + 1;
}

fn f1069() {
    let v = 1069 + 1;
}

fn f1070() {
    let v = 1070 + 1;
}

fn f1071() {
    let v = 1071 + 1;
}

fn f1072() {
    let v = 1072 + 1;
}

fn f1073() {
    let v = 1073 + 1;
}

fn f1074() {
    let v = 1074 + 1;
}

fn f1075() {
    let v = 1075 + 1;
}

fn f1076() {
    let v = 1076 + 1;
}

fn f1077() {
    let v = 1077 + 1;
}

fn f1078() {
    let v = 1078 + 1;
}

fn f1079() {
    let v = 1079 + 1;
}

fn f1080() {
    let v = 1080 + 1;
}

fn f1081() {
    let v = 1081 + 1;
}

fn f1082() {
    let v = 1082 + 1;
}

fn f1083() {
    let v = 1083 + 1;
}

fn f1084() {
    let v = 1084 + 1;
}

fn f1085() {
    let v = 1085 + 1;
}

fn f1086() {
    let v = 1086 + 1;
}

fn f1087() {
    let v = 1087 + 1;
}

fn f1088() {
    let v = 1088 + 1;
}

fn f1089() {
    let v = 1089 + 1;
}

fn f1090() {
    let v = 1090 + 1;
}

fn f1091() {
    let v = 1091 + 1;
}

fn f1092() {
    let v = 1092 + 1;
}

fn f1093() {
    let v = 1093 + 1;
}

fn f1094() {
    let v = 1094 + 1;
}

fn f1095() {
    let v = 1095 + 1;
}

fn f1096() {
    let v = 1096 + 1;
}

fn f1097() {
    let v = 1097 + 1;
}

fn f1098() {
    let v = 1098 + 1;
}

fn f1099() {
    let v = 1099 + 1;
}

fn f1100() {
    let v = 1100 + 1;
}

fn f1101() {
    let v = 1101 + 1;
}

fn f1102() {
    let v = 1102 + 1;
}

fn f1103() {
    let v = 1103 + 1;
}

fn f1104() {
    let v = 1104 + 1;
}

fn f1105() {
    let v = 1105 + 1;
}

fn f1106() {
    let v = 1106 + 1;
}

fn f1107() {
    let v = 1107 + 1;
}

fn f1108() {
    let v = 1108 + 1;
}

fn f1109() {
    let v = 1109 + 1;
}

fn f1110() {
    let v = 1110 + 1;
}

fn f1111() {
    let v = 1111 + 1;
}

fn f1112() {
    let v = 1112 + 1;
}

fn f1113() {
    let v = 1113 + 1;
}

fn f1114() {
    let v = 1114 + 1;
}

fn f1115() {
    let v = 1115 + 1;
}

fn f1116() {
    let v = 1116 + 1;
}

fn f1117() {
    let v = 1117 + 1;
}

fn f1118() {
    let v = 1118 + 1;
}

fn f1119() {
    let v = 1119 + 1;
}

fn f1120() {
    let v = 1120 + 1;
}

fn f1121() {
    let v = 1121 + 1;
}

fn f1122() {
    let v = 1122 + 1;
}

fn f1123() {
    let v = 1123 + 1;
}

fn f1124() {
    let v = 1124 + 1;
}

fn f1125() {
    let v = 1125 + 1;
}

fn f1126() {
    let v = 1126 + 1;
}

fn f1127() {
    let v = 1127 + 1;
}

fn f1128() {
    let v = 1128 + 1;
}

fn f1129() {
    let v = 1129 + 1;
}

fn f1130() {
    let v = 1130 + 1;
}

fn f1131() {
    let v = 1131 + 1;
}

fn f1132() {
    let v = 1132 + 1;
}

fn f1133() {
    let v = 1133 + 1;
}

fn f1134() {
    let v = 1134 + 1;
}

fn f1135() {
    let v = 1135 + 1;
}

fn f1136() {
    let v = 1136 + 1;
}

fn f1137() {
    let v = 1137 + 1;
}

fn f1138() {
    let v = 1138 + 1;
}

fn f1139() {
    let v = 1139 + 1;
}

fn f1140() {
    let v = 1140 + 1;
}

fn f1141() {
    let v = 1141 + 1;
}

fn f1142() {
    let v = 1142 + 1;
}

fn f1143() {
    let v = 1143 + 1;
}

fn f1144() {
    let v = 1144 + 1;
}

fn f1145() {
    let v = 1145 + 1;
}

fn f1146() {
    let v = 1146 + 1;
}

fn f1147() {
    let v = 1147 + 1;
}

fn f1148() {
    let v = 1148 + 1;
}

fn f1149() {
    let v = 1149 + 1;
}

fn f1150() {
    let v = 1150 + 1;
}

fn f1151() {
    let v = 1151 + 1;
}

fn f1152() {
    let v = 1152 + 1;
}

fn f1153() {
    let v = 1153 + 1;
}

fn f1154() {
    let v = 1154 + 1;
}

fn f1155() {
    let v = 1155 + 1;
}

fn f1156() {
    let v = 1156 + 1;
}

fn f1157() {
    let v = 1157 + 1;
}

fn f1158() {
    let v = 1158 + 1;
}

fn f1159() {
    let v = 1159 + 1;
}

fn f1160() {
    let v = 1160 + 1;
}

fn f1161() {
    let v = 1161 + 1;
}

fn f1162() {
    let v = 1162 + 1;
}

fn f1163() {
    let v = 1163 + 1;
}

fn f1164() {
    let v = 1164 + 1;
}

fn f1165() {
    let v = 1165 + 1;
}

fn f1166() {
    let v = 1166 + 1;
}

fn f1167() {
    let v = 1167 + 1;
}

fn f1168() {
    let v = 1168 + 1;
}

fn f1169() {
    let v = 1169 + 1;
}

fn f1170() {
    let v = 1170 + 1;
}

fn f1171() {
    let v = 1171 + 1;
}

fn f1172() {
    let v = 1172 + 1;
}

fn f1173() {
    let v = 1173 + 1;
}

fn f1174() {
    let v = 1174 + 1;
}

fn f1175() {
    let v = 1175 + 1;
}

fn f1176() {
    let v = 1176 + 1;
}

fn f1177() {
    let v = 1177 + 1;
}

fn f1178() {
    let v = 1178 + 1;
}

fn f1179() {
    let v = 1179 + 1;
}

fn f1180() {
    let v = 1180 + 1;
}

fn f1181() {
    let v = 1181 + 1;
}

fn f1182() {
    let v = 1182 + 1;
}

fn f1183() {
    let v = 1183 + 1;
}

fn f1184() {
    let v = 1184 + 1;
}

fn f1185() {
    let v = 1185 + 1;
}

fn f1186() {
    let v = 1186 + 1;
}

fn f1187() {
    let v = 1187 + 1;
}

fn f1188() {
    let v = 1188 + 1;
}

fn f1189() {
    let v = 1189 + 1;
}

fn f1190() {
    let v = 1190 + 1;
}

fn f1191() {
    let v = 1191 + 1;
}

fn f1192() {
    let v = 1192 + 1;
}

fn f1193() {
    let v = 1193 + 1;
}

fn f1194() {
    let v = 1194 + 1;
}

fn f1195() {
    let v = 1195 + 1;
}

fn f1196() {
    let v = 1196 + 1;
}

fn f1197() {
    let v = 1197 + 1;
}

fn f1198() {
    let v = 1198 + 1;
}

fn f1199() {
    let v = 1199 + 1;
}

fn f1200() {
    let v = 1200 + 1;
}

fn f1201() {
    let v = 1201 + 1;
}

fn f1202() {
    let v = 1202 + 1;
}

fn f1203() {
    let v = 1203 + 1;
}

fn f1204() {
    let v = 1204 + 1;
}

fn f1205() {
    let v = 1205 + 1;
}

fn f1206() {
    let v = 1206 + 1;
}

fn f1207() {
    let v = 1207 + 1;
}

fn f1208() {
    let v = 1208 + 1;
}

fn f1209() {
    let v = 1209 + 1;
}

fn f1210() {
    let v = 1210 + 1;
}

fn f1211() {
    let v = 1211 + 1;
}

fn f1212() {
    let v = 1212 + 1;
}

fn f1213() {
    let v = 1213 + 1;
}

fn f1214() {
    let v = 1214 + 1;
}

fn f1215() {
    let v = 1215 + 1;
}

fn f1216() {
    let v = 1216 + 1;
}

fn f1217() {
    let v = 1217 + 1;
}

fn f1218() {
    let v = 1218 + 1;
}

fn f1219() {
    let v = 1219 + 1;
}

fn f1220() {
    let v = 1220 + 1;
}

fn f1221() {
    let v = 1221 + 1;
}

fn f1222() {
    let v = 1222 + 1;
}

fn f1223() {
    let v = 1223 + 1;
}

fn f1224() {
    let v = 1224 + 1;
}

fn f1225() {
    let v = 1225 + 1;
}

fn f1226() {
    let v = 1226 + 1;
}

fn f1227() {
    let v = 1227 + 1;
}

fn f1228() {
    let v = 1228 + 1;
}

fn f1229() {
    let v = 1229 + 1;
}

fn f1230() {
    let v = 1230 + 1;
}

fn f1231() {
    let v = 1231 + 1;
}

fn f1232() {
    let v = 1232 + 1;
}

fn f1233() {
    let v = 1233 + 1;
}

fn f1234() {
    let v = 1234 + 1;
}

fn f1235() {
    let v = 1235 + 1;
}

fn f1236() {
    let v = 1236 + 1;
}

fn f1237() {
    let v = 1237 + 1;
}

fn f1238() {
    let v = 1238 + 1;
}

fn f1239() {
    let v = 1239 + 1;
}

fn f1240() {
    let v = 1240 + 1;
}

fn f1241() {
    let v = 1241 + 1;
}

fn f1242() {
    let v = 1242 + 1;
}

fn f1243() {
    let v = 1243 + 1;
}

fn f1244() {
    let v = 1244 + 1;
}

fn f1245() {
    let v = 1245 + 1;
}

fn f1246() {
    let v = 1246 + 1;
}

fn f1247() {
    let v = 1247 + 1;
}

fn f1248() {
    let v = 1248 + 1;
}

fn f1249() {
    let v = 1249 + 1;
}

fn f1250() {
    let v = 1250 + 1;
}

fn f1251() {
    let v = 1251 + 1;
}

fn f1252() {
    let v = 1252 + 1;
}

fn f1253() {
    let v = 1253 + 1;
}

fn f1254() {
    let v = 1254 + 1;
}

fn f1255() {
    let v = 1255 + 1;
}

fn f1256() {
    let v = 1256 + 1;
}

fn f1257() {
    let v = 1257 + 1;
}

fn f1258() {
    let v = 1258 + 1;
}

fn f1259() {
    let v = 1259 + 1;
}

fn f1260() {
    let v = 1260 + 1;
}

fn f1261() {
    let v = 1261 + 1;
}

fn f1262() {
    let v = 1262 + 1;
}

fn f1263() {
    let v = 1263 + 1;
}

fn f1264() {
    let v = 1264 + 1;
}

fn f1265() {
    let v = 1265 + 1;
}

fn f1266() {
    let v = 1266 + 1;
}

fn f1267() {
    let v = 1267 + 1;
}

fn f1268() {
    let v = 1268 + 1;
}

fn f1269() {
    let v = 1269 + 1;
}

fn f1270() {
    let v = 1270 + 1;
}

fn f1271() {
    let v = 1271 + 1;
}

fn f1272() {
    let v = 1272 + 1;
}

fn f1273() {
    let v = 1273 + 1;
}

fn f1274() {
    let v = 1274 + 1;
}

fn f1275() {
    let v = 1275 + 1;
}

fn f1276() {
    let v = 1276 + 1;
}

fn f1277() {
    let v = 1277 + 1;
}

fn f1278() {
    let v = 1278 + 1;
}

fn f1279() {
    let v = 1279 + 1;
}

fn f1280() {
    let v = 1280 + 1;
}

fn f1281() {
    let v = 1281 + 1;
}

fn f1282() {
    let v = 1282 + 1;
}

fn f1283() {
    let v = 1283 + 1;
}

fn f1284() {
    let v = 1284 + 1;
}

fn f1285() {
    let v = 1285 + 1;
}

fn f1286() {
    let v = 1286 + 1;
}

fn f1287() {
    let v = 1287 + 1;
}

fn f1288() {
    let v = 1288 + 1;
}

fn f1289() {
    let v = 1289 + 1;
}

fn f1290() {
    let v = 1290 + 1;
}

fn f1291() {
    let v = 1291 + 1;
}

fn f1292() {
    let v = 1292 + 1;
}

fn f1293() {
    let v = 1293 + 1;
}

fn f1294() {
    let v = 1294 + 1;
}

fn f1295() {
    let v = 1295 + 1;
}

fn f1296() {
    let v = 1296 + 1;
}

fn f1297() {
    let v = 1297 + 1;
}

fn f1298() {
    let v = 1298 + 1;
}

fn f1299() {
    let v = 1299 + 1;
}

fn f1300() {
    let v = 1300 + 1;
}

fn f1301() {
    let v = 1301 + 1;
}

fn f1302() {
    let v = 1302 + 1;
}

fn f1303() {
    let v = 1303 + 1;
}

fn f1304() {
    let v = 1304 + 1;
}

fn f1305() {
    let v = 1305 + 1;
}

fn f1306() {
    let v = 1306 + 1;
}

fn f1307() {
    let v = 1307 + 1;
}

fn f1308() {
    let v = 1308 + 1;
}

fn f1309() {
    let v = 1309 + 1;
}

fn f1310() {
    let v = 1310 + 1;
}

fn f1311() {
    let v = 1311 + 1;
}

fn f1312() {
    let v = 1312 + 1;
}

fn f1313() {
    let v = 1313 + 1;
}

fn f1314() {
    let v = 1314 + 1;
}

fn f1315() {
    let v = 1315 + 1;
}

fn f1316() {
    let v = 1316 + 1;
}

fn f1317() {
    let v = 1317 + 1;
}

fn f1318() {
    let v = 1318 + 1;
}

fn f1319() {
    let v = 1319 + 1;
}

fn f1320() {
    let v = 1320 + 1;
}

fn f1321() {
    let v = 1321 + 1;
}

fn f1322() {
    let v = 1322 + 1;
}

fn f1323() {
    let v = 1323 + 1;
}

fn f1324() {
    let v = 1324 + 1;
}

fn f1325() {
    let v = 1325 + 1;
}

fn f1326() {
    let v = 1326 + 1;
}

fn f1327() {
    let v = 1327 + 1;
}

fn f1328() {
    let v = 1328 + 1;
}

fn f1329() {
    let v = 1329 + 1;
}

fn f1330() {
    let v = 1330 + 1;
}

fn f1331() {
    let v = 1331 + 1;
}

fn f1332() {
    let v = 1332 + 1;
}

fn f1333() {
    let v = 1333 + 1;
}

fn f1334() {
    let v = 1334 + 1;
}

fn f1335() {
    let v = 1335 + 1;
}

fn f1336() {
    let v = 1336 + 1;
}

fn f1337() {
    let v = 1337 + 1;
}

fn f1338() {
    let v = 1338 + 1;
}

fn f1339() {
    let v = 1339 + 1;
}

fn f1340() {
    let v = 1340 + 1;
}

fn f1341() {
    let v = 1341 + 1;
}

fn f1342() {
    let v = 1342 + 1;
}

fn f1343() {
    let v = 1343 + 1;
}

fn f1344() {
    let v = 1344 + 1;
}

fn f1345() {
    let v = 1345 + 1;
}

fn f1346() {
    let v = 1346 + 1;
}

fn f1347() {
    let v = 1347 + 1;
}

fn f1348() {
    let v = 1348 + 1;
}

fn f1349() {
    let v = 1349 + 1;
}

fn f1350() {
    let v = 1350 + 1;
}

fn f1351() {
    let v = 1351 + 1;
}

fn f1352() {
    let v = 1352 + 1;
}

fn f1353() {
    let v = 1353 + 1;
}

fn f1354() {
    let v = 1354 + 1;
}

fn f1355() {
    let v = 1355 + 1;
}

fn f1356() {
    let v = 1356 + 1;
}

fn f1357() {
    let v = 1357 + 1;
}

fn f1358() {
    let v = 1358 + 1;
}

fn f1359() {
    let v = 1359 + 1;
}

fn f1360() {
    let v = 1360 + 1;
}

fn f1361() {
    let v = 1361 + 1;
}

fn f1362() {
    let v = 1362 + 1;
}

fn f1363() {
    let v = 1363 + 1;
}

fn f1364() {
    let v = 1364 + 1;
}

fn f1365() {
    let v = 1365 + 1;
}

fn f1366() {
    let v = 1366 + 1;
}

fn f1367() {
    let v = 1367 + 1;
}

fn f1368() {
    let v = 1368 + 1;
}

fn f1369() {
    let v = 1369 + 1;
}

fn f1370() {
    let v = 1370 + 1;
}

fn f1371() {
    let v = 1371 + 1;
}

fn f1372() {
    let v = 1372 + 1;
}

fn f1373() {
    let v = 1373 + 1;
}

fn f1374() {
    let v = 1374 + 1;
}

fn f1375() {
    let v = 1375 + 1;
}

fn f1376() {
    let v = 1376 + 1;
}

fn f1377() {
    let v = 1377 + 1;
}

fn f1378() {
    let v = 1378 + 1;
}

fn f1379() {
    let v = 1379 + 1;
}

fn f1380() {
    let v = 1380 + 1;
}

fn f1381() {
    let v = 1381 + 1;
}

fn f1382() {
    let v = 1382 + 1;
}

fn f1383() {
    let v = 1383 + 1;
}

fn f1384() {
    let v = 1384 + 1;
}

fn f1385() {
    let v = 1385 + 1;
}

fn f1386() {
    let v = 1386 + 1;
}

fn f1387() {
    let v = 1387 + 1;
}

fn f1388() {
    let v = 1388 + 1;
}

fn f1389() {
    let v = 1389 + 1;
}

fn f1390() {
    let v = 1390 + 1;
}

fn f1391() {
    let v = 1391 + 1;
}

fn f1392() {
    let v = 1392 + 1;
}

fn f1393() {
    let v = 1393 + 1;
}

fn f1394() {
    let v = 1394 + 1;
}

fn f1395() {
    let v = 1395 + 1;
}

fn f1396() {
    let v = 1396 + 1;
}

fn f1397() {
    let v = 1397 + 1;
}

fn f1398() {
    let v = 1398 + 1;
}

fn f1399() {
    let v = 1399 + 1;
}

fn f1400() {
    let v = 1400 + 1;
}

fn f1401() {
    let v = 1401 + 1;
}

fn f1402() {
    let v = 1402 + 1;
}

fn f1403() {
    let v = 1403 + 1;
}

fn f1404() {
    let v = 1404 + 1;
}

fn f1405() {
    let v = 1405 + 1;
}

fn f1406() {
    let v = 1406 + 1;
}

fn f1407() {
    let v = 1407 + 1;
}

fn f1408() {
    let v = 1408 + 1;
}

fn f1409() {
    let v = 1409 + 1;
}

fn f1410() {
    let v = 1410 + 1;
}

fn f1411() {
    let v = 1411 + 1;
}

fn f1412() {
    let v = 1412 + 1;
}

fn f1413() {
    let v = 1413 + 1;
}

fn f1414() {
    let v = 1414 + 1;
}

fn f1415() {
    let v = 1415 + 1;
}

fn f1416() {
    let v = 1416 + 1;
}

fn f1417() {
    let v = 1417 + 1;
}

fn f1418() {
    let v = 1418 + 1;
}

fn f1419() {
    let v = 1419 + 1;
}

fn f1420() {
    let v = 1420 + 1;
}

fn f1421() {
    let v = 1421 + 1;
}

fn f1422() {
    let v = 1422 + 1;
}

fn f1423() {
    let v = 1423 + 1;
}

fn f1424() {
    let v = 1424 + 1;
}

fn f1425() {
    let v = 1425 + 1;
}

fn f1426() {
    let v = 1426 + 1;
}

fn f1427() {
    let v = 1427 + 1;
}

fn f1428() {
    let v = 1428 + 1;
}

fn f1429() {
    let v = 1429 + 1;
}

fn f1430() {
    let v = 1430 + 1;
}

fn f1431() {
    let v = 1431 + 1;
}

fn f1432() {
    let v = 1432 + 1;
}

fn f1433() {
    let v = 1433 + 1;
}

fn f1434() {
    let v = 1434 + 1;
}

fn f1435() {
    let v = 1435 + 1;
}

fn f1436() {
    let v = 1436 + 1;
}

fn f1437() {
    let v = 1437 + 1;
}

fn f1438() {
    let v = 1438 + 1;
}

fn f1439() {
    let v = 1439 + 1;
}

fn f1440() {
    let v = 1440 + 1;
}

fn f1441() {
    let v = 1441 + 1;
}

fn f1442() {
    let v = 1442 + 1;
}

fn f1443() {
    let v = 1443 + 1;
}

fn f1444() {
    let v = 1444 + 1;
}

fn f1445() {
    let v = 1445 + 1;
}

fn f1446() {
    let v = 1446 + 1;
}

fn f1447() {
    let v = 1447 + 1;
}

fn f1448() {
    let v = 1448 + 1;
}

fn f1449() {
    let v = 1449 + 1;
}

fn f1450() {
    let v = 1450 + 1;
}

fn f1451() {
    let v = 1451 + 1;
}

fn f1452() {
    let v = 1452 + 1;
}

fn f1453() {
    let v = 1453 + 1;
}

fn f1454() {
    let v = 1454 + 1;
}

fn f1455() {
    let v = 1455 + 1;
}

fn f1456() {
    let v = 1456 + 1;
}

fn f1457() {
    let v = 1457 + 1;
}

fn f1458() {
    let v = 1458 + 1;
}

fn f1459() {
    let v = 1459 + 1;
}

fn f1460() {
    let v = 1460 + 1;
}

fn f1461() {
    let v = 1461 + 1;
}

fn f1462() {
    let v = 1462 + 1;
}

fn f1463() {
    let v = 1463 + 1;
}

fn f1464() {
    let v = 1464 + 1;
}

fn f1465() {
    let v = 1465 + 1;
}

fn f1466() {
    let v = 1466 + 1;
}

fn f1467() {
    let v = 1467 + 1;
}

fn f1468() {
    let v = 1468 + 1;
}

fn f1469() {
    let v = 1469 + 1;
}

fn f1470() {
    let v = 1470 + 1;
}

fn f1471() {
    let v = 1471 + 1;
}

fn f1472() {
    let v = 1472 + 1;
}

fn f1473() {
    let v = 1473 + 1;
}

fn f1474() {
    let v = 1474 + 1;
}

fn f1475() {
    let v = 1475 + 1;
}

fn f1476() {
    let v = 1476 + 1;
}

fn f1477() {
    let v = 1477 + 1;
}

fn f1478() {
    let v = 1478 + 1;
}

fn f1479() {
    let v = 1479 + 1;
}

fn f1480() {
    let v = 1480 + 1;
}

fn f1481() {
    let v = 1481 + 1;
}

fn f1482() {
    let v = 1482 + 1;
}

fn f1483() {
    let v = 1483 + 1;
}

fn f1484() {
    let v = 1484 + 1;
}

fn f1485() {
    let v = 1485 + 1;
}

fn f1486() {
    let v = 1486 + 1;
}

fn f1487() {
    let v = 1487 + 1;
}

fn f1488() {
    let v = 1488 + 1;
}

fn f1489() {
    let v = 1489 + 1;
}

fn f1490() {
    let v = 1490 + 1;
}

fn f1491() {
    let v = 1491 + 1;
}

fn f1492() {
    let v = 1492 + 1;
}

fn f1493() {
    let v = 1493 + 1;
}

fn f1494() {
    let v = 1494 + 1;
}

fn f1495() {
    let v = 1495 + 1;
}

fn f1496() {
    let v = 1496 + 1;
}

fn f1497() {
    let v = 1497 + 1;
}

fn f1498() {
    let v = 1498 + 1;
}

fn f1499() {
    let v = 1499 + 1;
}

fn f1500() {
    let v = 1500 + 1;
}

fn f1501() {
    let v = 1501 + 1;
}

fn f1502() {
    let v = 1502 + 1;
}

fn f1503() {
    let v = 1503 + 1;
}

fn f1504() {
    let v = 1504 + 1;
}

fn f1505() {
    let v = 1505 + 1;
}

fn f1506() {
    let v = 1506 + 1;
}

fn f1507() {
    let v = 1507 + 1;
}

fn f1508() {
    let v = 1508 + 1;
}

fn f1509() {
    let v = 1509 + 1;
}

fn f1510() {
    let v = 1510 + 1;
}

fn f1511() {
    let v = 1511 + 1;
}

fn f1512() {
    let v = 1512 + 1;
}

fn f1513() {
    let v = 1513 + 1;
}

fn f1514() {
    let v = 1514 + 1;
}

fn f1515() {
    let v = 1515 + 1;
}

fn f1516() {
    let v = 1516 + 1;
}

fn f1517() {
    let v = 1517 + 1;
}

fn f1518() {
    let v = 1518 + 1;
}

fn f1519() {
    let v = 1519 + 1;
}

fn f1520() {
    let v = 1520 + 1;
}

fn f1521() {
    let v = 1521 + 1;
}

fn f1522() {
    let v = 1522 + 1;
}

fn f1523() {
    let v = 1523 + 1;
}

fn f1524() {
    let v = 1524 + 1;
}

fn f1525() {
    let v = 1525 + 1;
}

fn f1526() {
    let v = 1526 + 1;
}

fn f1527() {
    let v = 1527 + 1;
}

fn f1528() {
    let v = 1528 + 1;
}

fn f1529() {
    let v = 1529 + 1;
}

fn f1530() {
    let v = 1530 + 1;
}

fn f1531() {
    let v = 1531 + 1;
}

fn f1532() {
    let v = 1532 + 1;
}

fn f1533() {
    let v = 1533 + 1;
}

fn f1534() {
    let v = 1534 + 1;
}

fn f1535() {
    let v = 1535 + 1;
}

fn f1536() {
    let v = 1536 + 1;
}

fn f1537() {
    let v = 1537 + 1;
}

fn f1538() {
    let v = 1538 + 1;
}

fn f1539() {
    let v = 1539 + 1;
}

fn f1540() {
    let v = 1540 + 1;
}

fn f1541() {
    let v = 1541 + 1;
}

fn f1542() {
    let v = 1542 + 1;
}

fn f1543() {
    let v = 1543 + 1;
}

fn f1544() {
    let v = 1544 + 1;
}

fn f1545() {
    let v = 1545 + 1;
}

fn f1546() {
    let v = 1546 + 1;
}

fn f1547() {
    let v = 1547 + 1;
}

fn f1548() {
    let v = 1548 + 1;
}

fn f1549() {
    let v = 1549 + 1;
}

fn f1550() {
    let v = 1550 + 1;
}

fn f1551() {
    let v = 1551 + 1;
}

fn f1552() {
    let v = 1552 + 1;
}

fn f1553() {
    let v = 1553 + 1;
}

fn f1554() {
    let v = 1554 + 1;
}

fn f1555() {
    let v = 1555 + 1;
}

fn f1556() {
    let v = 1556 + 1;
}

fn f1557() {
    let v = 1557 + 1;
}

fn f1558() {
    let v = 1558 + 1;
}

fn f1559() {
    let v = 1559 + 1;
}

fn f1560() {
    let v = 1560 + 1;
}

fn f1561() {
    let v = 1561 + 1;
}

fn f1562() {
    let v = 1562 + 1;
}

fn f1563() {
    let v = 1563 + 1;
}

fn f1564() {
    let v = 1564 + 1;
}

fn f1565() {
    let v = 1565 + 1;
}

fn f1566() {
    let v = 1566 + 1;
}

fn f1567() {
    let v = 1567 + 1;
}

fn f1568() {
    let v = 1568 + 1;
}

fn f1569() {
    let v = 1569 + 1;
}

fn f1570() {
    let v = 1570 + 1;
}

fn f1571() {
    let v = 1571 + 1;
}

fn f1572() {
    let v = 1572 + 1;
}

fn f1573() {
    let v = 1573 + 1;
}

fn f1574() {
    let v = 1574 + 1;
}

fn f1575() {
    let v = 1575 + 1;
}

fn f1576() {
    let v = 1576 + 1;
}

fn f1577() {
    let v = 1577 + 1;
}

fn f1578() {
    let v = 1578 + 1;
}

fn f1579() {
    let v = 1579 + 1;
}

fn f1580() {
    let v = 1580 + 1;
}

fn f1581() {
    let v = 1581 + 1;
}

fn f1582() {
    let v = 1582 + 1;
}

fn f1583() {
    let v = 1583 + 1;
}

fn f1584() {
    let v = 1584 + 1;
}

fn f1585() {
    let v = 1585 + 1;
}

fn f1586() {
    let v = 1586 + 1;
}

fn f1587() {
    let v = 1587 + 1;
}

fn f1588() {
    let v = 1588 + 1;
}

fn f1589() {
    let v = 1589 + 1;
}

fn f1590() {
    let v = 1590 + 1;
}

fn f1591() {
    let v = 1591 + 1;
}

fn f1592() {
    let v = 1592 + 1;
}

fn f1593() {
    let v = 1593 + 1;
}

fn f1594() {
    let v = 1594 + 1;
}

fn f1595() {
    let v = 1595 + 1;
}

fn f1596() {
    let v = 1596 + 1;
}

fn f1597() {
    let v = 1597 + 1;
}

fn f1598() {
    let v = 1598 + 1;
}

fn f1599() {
    let v = 1599 + 1;
}

fn f1600() {
    let v = 1600 + 1;
}

fn f1601() {
    let v = 1601 + 1;
}

fn f1602() {
    let v = 1602 + 1;
}

fn f1603() {
    let v = 1603 + 1;
}

fn f1604() {
    let v = 1604 + 1;
}

fn f1605() {
    let v = 1605 + 1;
}

fn f1606() {
    let v = 1606 + 1;
}

fn f1607() {
    let v = 1607 + 1;
}

fn f1608() {
    let v = 1608 + 1;
}

fn f1609() {
    let v = 1609 + 1;
}

fn f1610() {
    let v = 1610 + 1;
}

fn f1611() {
    let v = 1611 + 1;
}

fn f1612() {
    let v = 1612 + 1;
}

fn f1613() {
    let v = 1613 + 1;
}

fn f1614() {
    let v = 1614 + 1;
}

fn f1615() {
    let v = 1615 + 1;
}

fn f1616() {
    let v = 1616 + 1;
}

fn f1617() {
    let v = 1617 + 1;
}

fn f1618() {
    let v = 1618 + 1;
}

fn f1619() {
    let v = 1619 + 1;
}

fn f1620() {
    let v = 1620 + 1;
}

fn f1621() {
    let v = 1621 + 1;
}

fn f1622() {
    let v = 1622 + 1;
}

fn f1623() {
    let v = 1623 + 1;
}

fn f1624() {
    let v = 1624 + 1;
}

fn f1625() {
    let v = 1625 + 1;
}

fn f1626() {
    let v = 1626 + 1;
}

fn f1627() {
    let v = 1627 + 1;
}

fn f1628() {
    let v = 1628 + 1;
}

fn f1629() {
    let v = 1629 + 1;
}

fn f1630() {
    let v = 1630 + 1;
}

fn f1631() {
    let v = 1631 + 1;
}

fn f1632() {
    let v = 1632 + 1;
}

fn f1633() {
    let v = 1633 + 1;
}

fn f1634() {
    let v = 1634 + 1;
}

fn f1635() {
    let v = 1635 + 1;
}

fn f1636() {
    let v = 1636 + 1;
}

fn f1637() {
    let v = 1637 + 1;
}

fn f1638() {
    let v = 1638 + 1;
}

fn f1639() {
    let v = 1639 + 1;
}

fn f1640() {
    let v = 1640 + 1;
}

fn f1641() {
    let v = 1641 + 1;
}

fn f1642() {
    let v = 1642 + 1;
}

fn f1643() {
    let v = 1643 + 1;
}

fn f1644() {
    let v = 1644 + 1;
}

fn f1645() {
    let v = 1645 + 1;
}

fn f1646() {
    let v = 1646 + 1;
}

fn f1647() {
    let v = 1647 + 1;
}

fn f1648() {
    let v = 1648 + 1;
}

fn f1649() {
    let v = 1649 + 1;
}

fn f1650() {
    let v = 1650 + 1;
}

fn f1651() {
    let v = 1651 + 1;
}

fn f1652() {
    let v = 1652 + 1;
}

fn f1653() {
    let v = 1653 + 1;
}

fn f1654() {
    let v = 1654 + 1;
}

fn f1655() {
    let v = 1655 + 1;
}

fn f1656() {
    let v = 1656 + 1;
}

fn f1657() {
    let v = 1657 + 1;
}

fn f1658() {
    let v = 1658 + 1;
}

fn f1659() {
    let v = 1659 + 1;
}

fn f1660() {
    let v = 1660 + 1;
}

fn f1661() {
    let v = 1661 + 1;
}

fn f1662() {
    let v = 1662 + 1;
}

fn f1663() {
    let v = 1663 + 1;
}

fn f1664() {
    let v = 1664 + 1;
}

fn f1665() {
    let v = 1665 + 1;
}

fn f1666() {
    let v = 1666 + 1;
}

fn f1667() {
    let v = 1667 + 1;
}

fn f1668() {
    let v = 1668 + 1;
}

fn f1669() {
    let v = 1669 + 1;
}

fn f1670() {
    let v = 1670 + 1;
}

fn f1671() {
    let v = 1671 + 1;
}

fn f1672() {
    let v = 1672 + 1;
}

fn f1673() {
    let v = 1673 + 1;
}

fn f1674() {
    let v = 1674 + 1;
}

fn f1675() {
    let v = 1675 + 1;
}

fn f1676() {
    let v = 1676 + 1;
}

fn f1677() {
    let v = 1677 + 1;
}

fn f1678() {
    let v = 1678 + 1;
}

fn f1679() {
    let v = 1679 + 1;
}

fn f1680() {
    let v = 1680 + 1;
}

fn f1681() {
    let v = 1681 + 1;
}

fn f1682() {
    let v = 1682 + 1;
}

fn f1683() {
    let v = 1683 + 1;
}

fn f1684() {
    let v = 1684 + 1;
}

fn f1685() {
    let v = 1685 + 1;
}

fn f1686() {
    let v = 1686 + 1;
}

fn f1687() {
    let v = 1687 + 1;
}

fn f1688() {
    let v = 1688 + 1;
}

fn f1689() {
    let v = 1689 + 1;
}

fn f1690() {
    let v = 1690 + 1;
}

fn f1691() {
    let v = 1691 + 1;
}

fn f1692() {
    let v = 1692 + 1;
}

fn f1693() {
    let v = 1693 + 1;
}

fn f1694() {
    let v = 1694 + 1;
}

fn f1695() {
    let v = 1695 + 1;
}

fn f1696() {
    let v = 1696 + 1;
}

fn f1697() {
    let v = 1697 + 1;
}

fn f1698() {
    let v = 1698 + 1;
}

fn f1699() {
    let v = 1699 + 1;
}

fn f1700() {
    let v = 1700 + 1;
}

fn f1701() {
    let v = 1701 + 1;
}

fn f1702() {
    let v = 1702 + 1;
}

fn f1703() {
    let v = 1703 + 1;
}

fn f1704() {
    let v = 1704 + 1;
}

fn f1705() {
    let v = 1705 + 1;
}

fn f1706() {
    let v = 1706 + 1;
}

fn f1707() {
    let v = 1707 + 1;
}

fn f1708() {
    let v = 1708 + 1;
}

fn f1709() {
    let v = 1709 + 1;
}

fn f1710() {
    let v = 1710 + 1;
}

fn f1711() {
    let v = 1711 + 1;
}

fn f1712() {
    let v = 1712 + 1;
}

fn f1713() {
    let v = 1713 + 1;
}

fn f1714() {
    let v = 1714 + 1;
}

fn f1715() {
    let v = 1715 + 1;
}

fn f1716() {
    let v = 1716 + 1;
}

fn f1717() {
    let v = 1717 + 1;
}

fn f1718() {
    let v = 1718 + 1;
}

fn f1719() {
    let v = 1719 + 1;
}

fn f1720() {
    let v = 1720 + 1;
}

fn f1721() {
    let v = 1721 + 1;
}

fn f1722() {
    let v = 1722 + 1;
}

fn f1723() {
    let v = 1723 + 1;
}

fn f1724() {
    let v = 1724 + 1;
}

fn f1725() {
    let v = 1725 + 1;
}

fn f1726() {
    let v = 1726 + 1;
}

fn f1727() {
    let v = 1727 + 1;
}

fn f1728() {
    let v = 1728 + 1;
}

fn f1729() {
    let v = 1729 + 1;
}

fn f1730() {
    let v = 1730 + 1;
}

fn f1731() {
    let v = 1731 + 1;
}

fn f1732() {
    let v = 1732 + 1;
}

fn f1733() {
    let v = 1733 + 1;
}

fn f1734() {
    let v = 1734 + 1;
}

fn f1735() {
    let v = 1735 + 1;
}

fn f1736() {
    let v = 1736 + 1;
}

fn f1737() {
    let v = 1737 + 1;
}

fn f1738() {
    let v = 1738 + 1;
}

fn f1739() {
    let v = 1739 + 1;
}

fn f1740() {
    let v = 1740 + 1;
}

fn f1741() {
    let v = 1741 + 1;
}

fn f1742() {
    let v = 1742 + 1;
}

fn f1743() {
    let v = 1743 + 1;
}

fn f1744() {
    let v = 1744 + 1;
}

fn f1745() {
    let v = 1745 + 1;
}

fn f1746() {
    let v = 1746 + 1;
}

fn f1747() {
    let v = 1747 + 1;
}

fn f1748() {
    let v = 1748 + 1;
}

fn f1749() {
    let v = 1749 + 1;
}

fn f1750() {
    let v = 1750 + 1;
}

fn f1751() {
    let v = 1751 + 1;
}

fn f1752() {
    let v = 1752 + 1;
}

fn f1753() {
    let v = 1753 + 1;
}

fn f1754() {
    let v = 1754 + 1;
}

fn f1755() {
    let v = 1755 + 1;
}

fn f1756() {
    let v = 1756 + 1;
}

fn f1757() {
    let v = 1757 + 1;
}

fn f1758() {
    let v = 1758 + 1;
}

fn f1759() {
    let v = 1759 + 1;
}

fn f1760() {
    let v = 1760 + 1;
}

fn f1761() {
    let v = 1761 + 1;
}

fn f1762() {
    let v = 1762 + 1;
}

fn f1763() {
    let v = 1763 + 1;
}

fn f1764() {
    let v = 1764 + 1;
}

fn f1765() {
    let v = 1765 + 1;
}

fn f1766() {
    let v = 1766 + 1;
}

fn f1767() {
    let v = 1767 + 1;
}

fn f1768() {
    let v = 1768 + 1;
}

fn f1769() {
    let v = 1769 + 1;
}

fn f1770() {
    let v = 1770 + 1;
}

fn f1771() {
    let v = 1771 + 1;
}

fn f1772() {
    let v = 1772 + 1;
}

fn f1773() {
    let v = 1773 + 1;
}

fn f1774() {
    let v = 1774 + 1;
}

fn f1775() {
    let v = 1775 + 1;
}

fn f1776() {
    let v = 1776 + 1;
}

fn f1777() {
    let v = 1777 + 1;
}

fn f1778() {
    let v = 1778 + 1;
}

fn f1779() {
    let v = 1779 + 1;
}

fn f1780() {
    let v = 1780 + 1;
}

fn f1781() {
    let v = 1781 + 1;
}

fn f1782() {
    let v = 1782 + 1;
}

fn f1783() {
    let v = 1783 + 1;
}

fn f1784() {
    let v = 1784 + 1;
}

fn f1785() {
    let v = 1785 + 1;
}

fn f1786() {
    let v = 1786 + 1;
}

fn f1787() {
    let v = 1787 + 1;
}

fn f1788() {
    let v = 1788 + 1;
}

fn f1789() {
    let v = 1789 + 1;
}

fn f1790() {
    let v = 1790 + 1;
}

fn f1791() {
    let v = 1791 + 1;
}

fn f1792() {
    let v = 1792 + 1;
}

fn f1793() {
    let v = 1793 + 1;
}

fn f1794() {
    let v = 1794 + 1;
}

fn f1795() {
    let v = 1795 + 1;
}

fn f1796() {
    let v = 1796 + 1;
}

fn f1797() {
    let v = 1797 + 1;
}

fn f1798() {
    let v = 1798 + 1;
}

fn f1799() {
    let v = 1799 + 1;
}

fn f1800() {
    let v = 1800 + 1;
}

fn f1801() {
    let v = 1801 + 1;
}

fn f1802() {
    let v = 1802 + 1;
}

fn f1803() {
    let v = 1803 + 1;
}

fn f1804() {
    let v = 1804 + 1;
}

fn f1805() {
    let v = 1805 + 1;
}

fn f1806() {
    let v = 1806 + 1;
}

fn f1807() {
    let v = 1807 + 1;
}

fn f1808() {
    let v = 1808 + 1;
}

fn f1809() {
    let v = 1809 + 1;
}

fn f1810() {
    let v = 1810 + 1;
}

fn f1811() {
    let v = 1811 + 1;
}

fn f1812() {
    let v = 1812 + 1;
}

fn f1813() {
    let v = 1813 + 1;
}

fn f1814() {
    let v = 1814 + 1;
}

fn f1815() {
    let v = 1815 + 1;
}

fn f1816() {
    let v = 1816 + 1;
}

fn f1817() {
    let v = 1817 + 1;
}

fn f1818() {
    let v = 1818 + 1;
}

fn f1819() {
    let v = 1819 + 1;
}

fn f1820() {
    let v = 1820 + 1;
}

fn f1821() {
    let v = 1821 + 1;
}

fn f1822() {
    let v = 1822 + 1;
}

fn f1823() {
    let v = 1823 + 1;
}

fn f1824() {
    let v = 1824 + 1;
}

fn f1825() {
    let v = 1825 + 1;
}

fn f1826() {
    let v = 1826 + 1;
}

fn f1827() {
    let v = 1827 + 1;
}

fn f1828() {
    let v = 1828 + 1;
}

fn f1829() {
    let v = 1829 + 1;
}

fn f1830() {
    let v = 1830 + 1;
}

fn f1831() {
    let v = 1831 + 1;
}

fn f1832() {
    let v = 1832 + 1;
}

fn f1833() {
    let v = 1833 + 1;
}

fn f1834() {
    let v = 1834 + 1;
}

fn f1835() {
    let v = 1835 + 1;
}

fn f1836() {
    let v = 1836 + 1;
}

fn f1837() {
    let v = 1837 + 1;
}

fn f1838() {
    let v = 1838 + 1;
}

fn f1839() {
    let v = 1839 + 1;
}

fn f1840() {
    let v = 1840 + 1;
}

fn f1841() {
    let v = 1841 + 1;
}

fn f1842() {
    let v = 1842 + 1;
}

fn f1843() {
    let v = 1843 + 1;
}

fn f1844() {
    let v = 1844 + 1;
}

fn f1845() {
    let v = 1845 + 1;
}

fn f1846() {
    let v = 1846 + 1;
}

fn f1847() {
    let v = 1847 + 1;
}

fn f1848() {
    let v = 1848 + 1;
}

fn f1849() {
    let v = 1849 + 1;
}

fn f1850() {
    let v = 1850 + 1;
}

fn f1851() {
    let v = 1851 + 1;
}

fn f1852() {
    let v = 1852 + 1;
}

fn f1853() {
    let v = 1853 + 1;
}

fn f1854() {
    let v = 1854 + 1;
}

fn f1855() {
    let v = 1855 + 1;
}

fn f1856() {
    let v = 1856 + 1;
}

fn f1857() {
    let v = 1857 + 1;
}

fn f1858() {
    let v = 1858 + 1;
}

fn f1859() {
    let v = 1859 + 1;
}

fn f1860() {
    let v = 1860 + 1;
}

fn f1861() {
    let v = 1861 + 1;
}

fn f1862() {
    let v = 1862 + 1;
}

fn f1863() {
    let v = 1863 + 1;
}

fn f1864() {
    let v = 1864 + 1;
}

fn f1865() {
    let v = 1865 + 1;
}

fn f1866() {
    let v = 1866 + 1;
}

fn f1867() {
    let v = 1867 + 1;
}

fn f1868() {
    let v = 1868 + 1;
}

fn f1869() {
    let v = 1869 + 1;
}

fn f1870() {
    let v = 1870 + 1;
}

fn f1871() {
    let v = 1871 + 1;
}

fn f1872() {
    let v = 1872 + 1;
}

fn f1873() {
    let v = 1873 + 1;
}

fn f1874() {
    let v = 1874 + 1;
}

fn f1875() {
    let v = 1875 + 1;
}

fn f1876() {
    let v = 1876 + 1;
}

fn f1877() {
    let v = 1877 + 1;
}

fn f1878() {
    let v = 1878 + 1;
}

fn f1879() {
    let v = 1879 + 1;
}

fn f1880() {
    let v = 1880 + 1;
}

fn f1881() {
    let v = 1881 + 1;
}

fn f1882() {
    let v = 1882 + 1;
}

fn f1883() {
    let v = 1883 + 1;
}

fn f1884() {
    let v = 1884 + 1;
}

fn f1885() {
    let v = 1885 + 1;
}

fn f1886() {
    let v = 1886 + 1;
}

fn f1887() {
    let v = 1887 + 1;
}

fn f1888() {
    let v = 1888 + 1;
}

fn f1889() {
    let v = 1889 + 1;
}

fn f1890() {
    let v = 1890 + 1;
}

fn f1891() {
    let v = 1891 + 1;
}

fn f1892() {
    let v = 1892 + 1;
}

fn f1893() {
    let v = 1893 + 1;
}

fn f1894() {
    let v = 1894 + 1;
}

fn f1895() {
    let v = 1895 + 1;
}

fn f1896() {
    let v = 1896 + 1;
}

fn f1897() {
    let v = 1897 + 1;
}

fn f1898() {
    let v = 1898 + 1;
}

fn f1899() {
    let v = 1899 + 1;
}

fn f1900() {
    let v = 1900 + 1;
}

fn f1901() {
    let v = 1901 + 1;
}

fn f1902() {
    let v = 1902 + 1;
}

fn f1903() {
    let v = 1903 + 1;
}

fn f1904() {
    let v = 1904 + 1;
}

fn f1905() {
    let v = 1905 + 1;
}

fn f1906() {
    let v = 1906 + 1;
}

fn f1907() {
    let v = 1907 + 1;
}

fn f1908() {
    let v = 1908 + 1;
}

fn f1909() {
    let v = 1909 + 1;
}

fn f1910() {
    let v = 1910 + 1;
}

fn f1911() {
    let v = 1911 + 1;
}

fn f1912() {
    let v = 1912 + 1;
}

fn f1913() {
    let v = 1913 + 1;
}

fn f1914() {
    let v = 1914 + 1;
}

fn f1915() {
    let v = 1915 + 1;
}

fn f1916() {
    let v = 1916 + 1;
}

fn f1917() {
    let v = 1917 + 1;
}

fn f1918() {
    let v = 1918 + 1;
}

fn f1919() {
    let v = 1919 + 1;
}

fn f1920() {
    let v = 1920 + 1;
}

fn f1921() {
    let v = 1921 + 1;
}

fn f1922() {
    let v = 1922 + 1;
}

fn f1923() {
    let v = 1923 + 1;
}

fn f1924() {
    let v = 1924 + 1;
}

fn f1925() {
    let v = 1925 + 1;
}

fn f1926() {
    let v = 1926 + 1;
}

fn f1927() {
    let v = 1927 + 1;
}

fn f1928() {
    let v = 1928 + 1;
}

fn f1929() {
    let v = 1929 + 1;
}

fn f1930() {
    let v = 1930 + 1;
}

fn f1931() {
    let v = 1931 + 1;
}

fn f1932() {
    let v = 1932 + 1;
}

fn f1933() {
    let v = 1933 + 1;
}

fn f1934() {
    let v = 1934 + 1;
}

fn f1935() {
    let v = 1935 + 1;
}

fn f1936() {
    let v = 1936 + 1;
}

fn f1937() {
    let v = 1937 + 1;
}

fn f1938() {
    let v = 1938 + 1;
}

fn f1939() {
    let v = 1939 + 1;
}

fn f1940() {
    let v = 1940 + 1;
}

fn f1941() {
    let v = 1941 + 1;
}

fn f1942() {
    let v = 1942 + 1;
}

fn f1943() {
    let v = 1943 + 1;
}

fn f1944() {
    let v = 1944 + 1;
}

fn f1945() {
    let v = 1945 + 1;
}

fn f1946() {
    let v = 1946 + 1;
}

fn f1947() {
    let v = 1947 + 1;
}

fn f1948() {
    let v = 1948 + 1;
}

fn f1949() {
    let v = 1949 + 1;
}

fn f1950() {
    let v = 1950 + 1;
}

fn f1951() {
    let v = 1951 + 1;
}

fn f1952() {
    let v = 1952 + 1;
}

fn f1953() {
    let v = 1953 + 1;
}

fn f1954() {
    let v = 1954 + 1;
}

fn f1955() {
    let v = 1955 + 1;
}

fn f1956() {
    let v = 1956 + 1;
}

fn f1957() {
    let v = 1957 + 1;
}

fn f1958() {
    let v = 1958 + 1;
}

fn f1959() {
    let v = 1959 + 1;
}

fn f1960() {
    let v = 1960 + 1;
}

fn f1961() {
    let v = 1961 + 1;
}

fn f1962() {
    let v = 1962 + 1;
}

fn f1963() {
    let v = 1963 + 1;
}

fn f1964() {
    let v = 1964 + 1;
}

fn f1965() {
    let v = 1965 + 1;
}

fn f1966() {
    let v = 1966 + 1;
}

fn f1967() {
    let v = 1967 + 1;
}

fn f1968() {
    let v = 1968 + 1;
}

fn f1969() {
    let v = 1969 + 1;
}

fn f1970() {
    let v = 1970 + 1;
}

fn f1971() {
    let v = 1971 + 1;
}

fn f1972() {
    let v = 1972 + 1;
}

fn f1973() {
    let v = 1973 + 1;
}

fn f1974() {
    let v = 1974 + 1;
}

fn f1975() {
    let v = 1975 + 1;
}

fn f1976() {
    let v = 1976 + 1;
}

fn f1977() {
    let v = 1977 + 1;
}

fn f1978() {
    let v = 1978 + 1;
}

fn f1979() {
    let v = 1979 + 1;
}

fn f1980() {
    let v = 1980 + 1;
}

fn f1981() {
    let v = 1981 + 1;
}

fn f1982() {
    let v = 1982 + 1;
}

fn f1983() {
    let v = 1983 + 1;
}

fn f1984() {
    let v = 1984 + 1;
}

fn f1985() {
    let v = 1985 + 1;
}

fn f1986() {
    let v = 1986 + 1;
}

fn f1987() {
    let v = 1987 + 1;
}

fn f1988() {
    let v = 1988 + 1;
}

fn f1989() {
    let v = 1989 + 1;
}

fn f1990() {
    let v = 1990 + 1;
}

fn f1991() {
    let v = 1991 + 1;
}

fn f1992() {
    let v = 1992 + 1;
}

fn f1993() {
    let v = 1993 + 1;
}

fn f1994() {
    let v = 1994 + 1;
}

fn f1995() {
    let v = 1995 + 1;
}

fn f1996() {
    let v = 1996 + 1;
}

fn f1997() {
    let v = 1997 + 1;
}

fn f1998() {
    let v = 1998 + 1;
}

fn f1999() {
    let v = 1999 + 1;
}

