fn f0() {
    let v = 0;
}

fn f1() {
    let v = 1;
}

fn f2() {
    let v = 2;
}

fn f3() {
    let v = 3;
}

fn f4() {
    let v = 4;
}

fn f5() {
    let v = 5;
}

fn f6() {
    let v = 6;
}

fn f7() {
    let v = 7;
}

fn f8() {
    let v = 8;
}

fn f9() {
    let v = 9;
}

fn f10() {
    let v = 10;
}

fn f11() {
    let v = 11;
}

fn f12() {
    let v = 12;
}

fn f13() {
    let v = 13;
}

fn f14() {
    let v = 14;
}

fn f15() {
    let v = 15;
}

fn f16() {
    let v = 16;
}

fn f17() {
    let v = 17;
}

fn f18() {
    let v = 18;
}

fn f19() {
    let v = 19;
}

fn f20() {
    let v = 20;
}

fn f21() {
    let v = 21;
}

fn f22() {
    let v = 22;
}

fn f23() {
    let v = 23;
}

fn f24() {
    let v = 24;
}

fn f25() {
    let v = 25;
}

fn f26() {
    let v = 26;
}

fn f27() {
    let v = 27;
}

fn f28() {
    let v = 28;
}

fn f29() {
    let v = 29;
}

fn f30() {
    let v = 30;
}

fn f31() {
    let v = 31;
}

fn f32() {
    let v = 32;
}

fn f33() {
    let v = 33;
}

fn f34() {
    let v = 34;
}

fn f35() {
    let v = 35;
}

fn f36() {
    let v = 36;
}

fn f37() {
    let v = 37;
}

fn f38() {
    let v = 38;
}

fn f39() {
    let v = 39;
}

fn f40() {
    let v = 40;
}

fn f41() {
    let v = 41;
}

fn f42() {
    let v = 42;
}

fn f43() {
    let v = 43;
}

fn f44() {
    let v = 44;
}

fn f45() {
    let v = 45;
}

fn f46() {
    let v = 46;
}

fn f47() {
    let v = 47;
}

fn f48() {
    let v = 48;
}

fn f49() {
    let v = 49;
}

fn f50() {
    let v = 50;
}

fn f51() {
    let v = 51;
}

fn f52() {
    let v = 52;
}

fn f53() {
    let v = 53;
}

fn f54() {
    let v = 54;
}

fn f55() {
    let v = 55;
}

fn f56() {
    let v = 56;
}

fn f57() {
    let v = 57;
}

fn f58() {
    let v = 58;
}

fn f59() {
    let v = 59;
}

fn f60() {
    let v = 60;
}

fn f61() {
    let v = 61;
}

fn f62() {
    let v = 62;
}

fn f63() {
    let v = 63;
}

fn f64() {
    let v = 64;
}

fn f65() {
    let v = 65;
}

fn f66() {
    let v = 66;
}

fn f67() {
    let v = 67;
}

fn f68() {
    let v = 68;
}

fn f69() {
    let v = 69;
}

fn f70() {
    let v = 70;
}

fn f71() {
    let v = 71;
}

fn f72() {
    let v = 72;
}

fn f73() {
    let v = 73;
}

fn f74() {
    let v = 74;
}

fn f75() {
    let v = 75;
}

fn f76() {
    let v = 76;
}

fn f77() {
    let v = 77;
}

fn f78() {
    let v = 78;
}

fn f79() {
    let v = 79;
}

fn f80() {
    let v = 80;
}

fn f81() {
    let v = 81;
}

fn f82() {
    let v = 82;
}

fn f83() {
    let v = 83;
}

fn f84() {
    let v = 84;
}

fn f85() {
    let v = 85;
}

fn f86() {
    let v = 86;
}

fn f87() {
    let v = 87;
}

fn f88() {
    let v = 88;
}

fn f89() {
    let v = 89;
}

fn f90() {
    let v = 90;
}

fn f91() {
    let v = 91;
}

fn f92() {
    let v = 92;
}

fn f93() {
    let v = 93;
}

fn f94() {
    let v = 94;
}

fn f95() {
    let v = 95;
}

fn f96() {
    let v = 96;
}

fn f97() {
    let v = 97;
}

fn f98() {
    let v = 98;
}

fn f99() {
    let v = 99;
}

fn f100() {
    let v = 100;
}

fn f101() {
    let v = 101;
}

fn f102() {
    let v = 102;
}

fn f103() {
    let v = 103;
}

fn f104() {
    let v = 104;
}

fn f105() {
    let v = 105;
}

fn f106() {
    let v = 106;
}

fn f107() {
    let v = 107;
}

fn f108() {
    let v = 108;
}

fn f109() {
    let v = 109;
}

fn f110() {
    let v = 110;
}

fn f111() {
    let v = 111;
}

fn f112() {
    let v = 112;
}

fn f113() {
    let v = 113;
}

fn f114() {
    let v = 114;
}

fn f115() {
    let v = 115;
}

fn f116() {
    let v = 116;
}

fn f117() {
    let v = 117;
}

fn f118() {
    let v = 118;
}

fn f119() {
    let v = 119;
}

fn f120() {
    let v = 120;
}

fn f121() {
    let v = 121;
}

fn f122() {
    let v = 122;
}

fn f123() {
    let v = 123;
}

fn f124() {
    let v = 124;
}

fn f125() {
    let v = 125;
}

fn f126() {
    let v = 126;
}

fn f127() {
    let v = 127;
}

fn f128() {
    let v = 128;
}

fn f129() {
    let v = 129;
}

fn f130() {
    let v = 130;
}

fn f131() {
    let v = 131;
}

fn f132() {
    let v = 132;
}

fn f133() {
    let v = 133;
}

fn f134() {
    let v = 134;
}

fn f135() {
    let v = 135;
}

fn f136() {
    let v = 136;
}

fn f137() {
    let v = 137;
}

fn f138() {
    let v = 138;
}

fn f139() {
    let v = 139;
}

fn f140() {
    let v = 140;
}

fn f141() {
    let v = 141;
}

fn f142() {
    let v = 142;
}

fn f143() {
    let v = 143;
}

fn f144() {
    let v = 144;
}

fn f145() {
    let v = 145;
}

fn f146() {
    let v = 146;
}

fn f147() {
    let v = 147;
}

fn f148() {
    let v = 148;
}

fn f149() {
    let v = 149;
}

fn f150() {
    let v = 150;
}

fn f151() {
    let v = 151;
}

fn f152() {
    let v = 152;
}

fn f153() {
    let v = 153;
}

fn f154() {
    let v = 154;
}

fn f155() {
    let v = 155;
}

fn f156() {
    let v = 156;
}

fn f157() {
    let v = 157;
}

fn f158() {
    let v = 158;
}

fn f159() {
    let v = 159;
}

fn f160() {
    let v = 160;
}

fn f161() {
    let v = 161;
}

fn f162() {
    let v = 162;
}

fn f163() {
    let v = 163;
}

fn f164() {
    let v = 164;
}

fn f165() {
    let v = 165;
}

fn f166() {
    let v = 166;
}

fn f167() {
    let v = 167;
}

fn f168() {
    let v = 168;
}

fn f169() {
    let v = 169;
}

fn f170() {
    let v = 170;
}

fn f171() {
    let v = 171;
}

fn f172() {
    let v = 172;
}

fn f173() {
    let v = 173;
}

fn f174() {
    let v = 174;
}

fn f175() {
    let v = 175;
}

fn f176() {
    let v = 176;
}

fn f177() {
    let v = 177;
}

fn f178() {
    let v = 178;
}

fn f179() {
    let v = 179;
}

fn f180() {
    let v = 180;
}

fn f181() {
    let v = 181;
}

fn f182() {
    let v = 182;
}

fn f183() {
    let v = 183;
}

fn f184() {
    let v = 184;
}

fn f185() {
    let v = 185;
}

fn f186() {
    let v = 186;
}

fn f187() {
    let v = 187;
}

fn f188() {
    let v = 188;
}

fn f189() {
    let v = 189;
}

fn f190() {
    let v = 190;
}

fn f191() {
    let v = 191;
}

fn f192() {
    let v = 192;
}

fn f193() {
    let v = 193;
}

fn f194() {
    let v = 194;
}

fn f195() {
    let v = 195;
}

fn f196() {
    let v = 196;
}

fn f197() {
    let v = 197;
}

fn f198() {
    let v = 198;
}

fn f199() {
    let v = 199;
}

fn f200() {
    let v = 200;
}

fn f201() {
    let v = 201;
}

fn f202() {
    let v = 202;
}

fn f203() {
    let v = 203;
}

fn f204() {
    let v = 204;
}

fn f205() {
    let v = 205;
}

fn f206() {
    let v = 206;
}

fn f207() {
    let v = 207;
}

fn f208() {
    let v = 208;
}

fn f209() {
    let v = 209;
}

fn f210() {
    let v = 210;
}

fn f211() {
    let v = 211;
}

fn f212() {
    let v = 212;
}

fn f213() {
    let v = 213;
}

fn f214() {
    let v = 214;
}

fn f215() {
    let v = 215;
}

fn f216() {
    let v = 216;
}

fn f217() {
    let v = 217;
}

fn f218() {
    let v = 218;
}

fn f219() {
    let v = 219;
}

fn f220() {
    let v = 220;
}

fn f221() {
    let v = 221;
}

fn f222() {
    let v = 222;
}

fn f223() {
    let v = 223;
}

fn f224() {
    let v = 224;
}

fn f225() {
    let v = 225;
}

fn f226() {
    let v = 226;
}

fn f227() {
    let v = 227;
}

fn f228() {
    let v = 228;
}

fn f229() {
    let v = 229;
}

fn f230() {
    let v = 230;
}

fn f231() {
    let v = 231;
}

fn f232() {
    let v = 232;
}

fn f233() {
    let v = 233;
}

fn f234() {
    let v = 234;
}

fn f235() {
    let v = 235;
}

fn f236() {
    let v = 236;
}

fn f237() {
    let v = 237;
}

fn f238() {
    let v = 238;
}

fn f239() {
    let v = 239;
}

fn f240() {
    let v = 240;
}

fn f241() {
    let v = 241;
}

fn f242() {
    let v = 242;
}

fn f243() {
    let v = 243;
}

fn f244() {
    let v = 244;
}

fn f245() {
    let v = 245;
}

fn f246() {
    let v = 246;
}

fn f247() {
    let v = 247;
}

fn f248() {
    let v = 248;
}

fn f249() {
    let v = 249;
}

fn f250() {
    let v = 250;
}

fn f251() {
    let v = 251;
}

fn f252() {
    let v = 252;
}

fn f253() {
    let v = 253;
}

fn f254() {
    let v = 254;
}

fn f255() {
    let v = 255;
}

fn f256() {
    let v = 256;
}

fn f257() {
    let v = 257;
}

fn f258() {
    let v = 258;
}

fn f259() {
    let v = 259;
}

fn f260() {
    let v = 260;
}

fn f261() {
    let v = 261;
}

fn f262() {
    let v = 262;
}

fn f263() {
    let v = 263;
}

fn f264() {
    let v = 264;
}

fn f265() {
    let v = 265;
}

fn f266() {
    let v = 266;
}

fn f267() {
    let v = 267;
}

fn f268() {
    let v = 268;
}

fn f269() {
    let v = 269;
}

fn f270() {
    let v = 270;
}

fn f271() {
    let v = 271;
}

fn f272() {
    let v = 272;
}

fn f273() {
    let v = 273;
}

fn f274() {
    let v = 274;
}

fn f275() {
    let v = 275;
}

fn f276() {
    let v = 276;
}

fn f277() {
    let v = 277;
}

fn f278() {
    let v = 278;
}

fn f279() {
    let v = 279;
}

fn f280() {
    let v = 280;
}

fn f281() {
    let v = 281;
}

fn f282() {
    let v = 282;
}

fn f283() {
    let v = 283;
}

fn f284() {
    let v = 284;
}

fn f285() {
    let v = 285;
}

fn f286() {
    let v = 286;
}

fn f287() {
    let v = 287;
}

fn f288() {
    let v = 288;
}

fn f289() {
    let v = 289;
}

fn f290() {
    let v = 290;
}

fn f291() {
    let v = 291;
}

fn f292() {
    let v = 292;
}

fn f293() {
    let v = 293;
}

fn f294() {
    let v = 294;
}

fn f295() {
    let v = 295;
}

fn f296() {
    let v = 296;
}

fn f297() {
    let v = 297;
}

fn f298() {
    let v = 298;
}

fn f299() {
    let v = 299;
}

fn f300() {
    let v = 300;
}

fn f301() {
    let v = 301;
}

fn f302() {
    let v = 302;
}

fn f303() {
    let v = 303;
}

fn f304() {
    let v = 304;
}

fn f305() {
    let v = 305;
}

fn f306() {
    let v = 306;
}

fn f307() {
    let v = 307;
}

fn f308() {
    let v = 308;
}

fn f309() {
    let v = 309;
}

fn f310() {
    let v = 310;
}

fn f311() {
    let v = 311;
}

fn f312() {
    let v = 312;
}

fn f313() {
    let v = 313;
}

fn f314() {
    let v = 314;
}

fn f315() {
    let v = 315;
}

fn f316() {
    let v = 316;
}

fn f317() {
    let v = 317;
}

fn f318() {
    let v = 318;
}

fn f319() {
    let v = 319;
}

fn f320() {
    let v = 320;
}

fn f321() {
    let v = 321;
}

fn f322() {
    let v = 322;
}

fn f323() {
    let v = 323;
}

fn f324() {
    let v = 324;
}

fn f325() {
    let v = 325;
}

fn f326() {
    let v = 326;
}

fn f327() {
    let v = 327;
}

fn f328() {
    let v = 328;
}

fn f329() {
    let v = 329;
}

fn f330() {
    let v = 330;
}

fn f331() {
    let v = 331;
}

fn f332() {
    let v = 332;
}

fn f333() {
    let v = 333;
}

fn f334() {
    let v = 334;
}

fn f335() {
    let v = 335;
}

fn f336() {
    let v = 336;
}

fn f337() {
    let v = 337;
}

fn f338() {
    let v = 338;
}

fn f339() {
    let v = 339;
}

fn f340() {
    let v = 340;
}

fn f341() {
    let v = 341;
}

fn f342() {
    let v = 342;
}

fn f343() {
    let v = 343;
}

fn f344() {
    let v = 344;
}

fn f345() {
    let v = 345;
}

fn f346() {
    let v = 346;
}

fn f347() {
    let v = 347;
}

fn f348() {
    let v = 348;
}

fn f349() {
    let v = 349;
}

fn f350() {
    let v = 350;
}

fn f351() {
    let v = 351;
}

fn f352() {
    let v = 352;
}

fn f353() {
    let v = 353;
}

fn f354() {
    let v = 354;
}

fn f355() {
    let v = 355;
}

fn f356() {
    let v = 356;
}

fn f357() {
    let v = 357;
}

fn f358() {
    let v = 358;
}

fn f359() {
    let v = 359;
}

fn f360() {
    let v = 360;
}

fn f361() {
    let v = 361;
}

fn f362() {
    let v = 362;
}

fn f363() {
    let v = 363;
}

fn f364() {
    let v = 364;
}

fn f365() {
    let v = 365;
}

fn f366() {
    let v = 366;
}

fn f367() {
    let v = 367;
}

fn f368() {
    let v = 368;
}

fn f369() {
    let v = 369;
}

fn f370() {
    let v = 370;
}

fn f371() {
    let v = 371;
}

fn f372() {
    let v = 372;
}

fn f373() {
    let v = 373;
}

fn f374() {
    let v = 374;
}

fn f375() {
    let v = 375;
}

fn f376() {
    let v = 376;
}

fn f377() {
    let v = 377;
}

fn f378() {
    let v = 378;
}

fn f379() {
    let v = 379;
}

fn f380() {
    let v = 380;
}

fn f381() {
    let v = 381;
}

fn f382() {
    let v = 382;
}

fn f383() {
    let v = 383;
}

fn f384() {
    let v = 384;
}

fn f385() {
    let v = 385;
}

fn f386() {
    let v = 386;
}

fn f387() {
    let v = 387;
}

fn f388() {
    let v = 388;
}

fn f389() {
    let v = 389;
}

fn f390() {
    let v = 390;
}

fn f391() {
    let v = 391;
}

fn f392() {
    let v = 392;
}

fn f393() {
    let v = 393;
}

fn f394() {
    let v = 394;
}

fn f395() {
    let v = 395;
}

fn f396() {
    let v = 396;
}

fn f397() {
    let v = 397;
}

fn f398() {
    let v = 398;
}

fn f399() {
    let v = 399;
}

fn f400() {
    let v = 400;
}

fn f401() {
    let v = 401;
}

fn f402() {
    let v = 402;
}

fn f403() {
    let v = 403;
}

fn f404() {
    let v = 404;
}

fn f405() {
    let v = 405;
}

fn f406() {
    let v = 406;
}

fn f407() {
    let v = 407;
}

fn f408() {
    let v = 408;
}

fn f409() {
    let v = 409;
}

fn f410() {
    let v = 410;
}

fn f411() {
    let v = 411;
}

fn f412() {
    let v = 412;
}

fn f413() {
    let v = 413;
}

fn f414() {
    let v = 414;
}

fn f415() {
    let v = 415;
}

fn f416() {
    let v = 416;
}

fn f417() {
    let v = 417;
}

fn f418() {
    let v = 418;
}

fn f419() {
    let v = 419;
}

fn f420() {
    let v = 420;
}

fn f421() {
    let v = 421;
}

fn f422() {
    let v = 422;
}

fn f423() {
    let v = 423;
}

fn f424() {
    let v = 424;
}

fn f425() {
    let v = 425;
}

fn f426() {
    let v = 426;
}

fn f427() {
    let v = 427;
}

fn f428() {
    let v = 428;
}

fn f429() {
    let v = 429;
}

fn f430() {
    let v = 430;
}

fn f431() {
    let v = 431;
}

fn f432() {
    let v = 432;
}

fn f433() {
    let v = 433;
}

fn f434() {
    let v = 434;
}

fn f435() {
    let v = 435;
}

fn f436() {
    let v = 436;
}

fn f437() {
    let v = 437;
}

fn f438() {
    let v = 438;
}

fn f439() {
    let v = 439;
}

fn f440() {
    let v = 440;
}

fn f441() {
    let v = 441;
}

fn f442() {
    let v = 442;
}

fn f443() {
    let v = 443;
}

fn f444() {
    let v = 444;
}

fn f445() {
    let v = 445;
}

fn f446() {
    let v = 446;
}

fn f447() {
    let v = 447;
}

fn f448() {
    let v = 448;
}

fn f449() {
    let v = 449;
}

fn f450() {
    let v = 450;
}

fn f451() {
    let v = 451;
}

fn f452() {
    let v = 452;
}

fn f453() {
    let v = 453;
}

fn f454() {
    let v = 454;
}

fn f455() {
    let v = 455;
}

fn f456() {
    let v = 456;
}

fn f457() {
    let v = 457;
}

fn f458() {
    let v = 458;
}

fn f459() {
    let v = 459;
}

fn f460() {
    let v = 460;
}

fn f461() {
    let v = 461;
}

fn f462() {
    let v = 462;
}

fn f463() {
    let v = 463;
}

fn f464() {
    let v = 464;
}

fn f465() {
    let v = 465;
}

fn f466() {
    let v = 466;
}

fn f467() {
    let v = 467;
}

fn f468() {
    let v = 468;
}

fn f469() {
    let v = 469;
}

fn f470() {
    let v = 470;
}

fn f471() {
    let v = 471;
}

fn f472() {
    let v = 472;
}

fn f473() {
    let v = 473;
}

fn f474() {
    let v = 474;
}

fn f475() {
    let v = 475;
}

fn f476() {
    let v = 476;
}

fn f477() {
    let v = 477;
}

fn f478() {
    let v = 478;
}

fn f479() {
    let v = 479;
}

fn f480() {
    let v = 480;
}

fn f481() {
    let v = 481;
}

fn f482() {
    let v = 482;
}

fn f483() {
    let v = 483;
}

fn f484() {
    let v = 484;
}

fn f485() {
    let v = 485;
}

fn f486() {
    let v = 486;
}

fn f487() {
    let v = 487;
}

fn f488() {
    let v = 488;
}

fn f489() {
    let v = 489;
}

fn f490() {
    let v = 490;
}

fn f491() {
    let v = 491;
}

fn f492() {
    let v = 492;
}

fn f493() {
    let v = 493;
}

fn f494() {
    let v = 494;
}

fn f495() {
    let v = 495;
}

fn f496() {
    let v = 496;
}

fn f497() {
    let v = 497;
}

fn f498() {
    let v = 498;
}

fn f499() {
    let v = 499;
}

fn f500() {
    let v = 500;
}

fn f501() {
    let v = 501;
}

fn f502() {
    let v = 502;
}

fn f503() {
    let v = 503;
}

fn f504() {
    let v = 504;
}

fn f505() {
    let v = 505;
}

fn f506() {
    let v = 506;
}

fn f507() {
    let v = 507;
}

fn f508() {
    let v = 508;
}

fn f509() {
    let v = 509;
}

fn f510() {
    let v = 510;
}

fn f511() {
    let v = 511;
}

fn f512() {
    let v = 512;
}

fn f513() {
    let v = 513;
}

fn f514() {
    let v = 514;
}

fn f515() {
    let v = 515;
}

fn f516() {
    let v = 516;
}

fn f517() {
    let v = 517;
}

fn f518() {
    let v = 518;
}

fn f519() {
    let v = 519;
}

fn f520() {
    let v = 520;
}

fn f521() {
    let v = 521;
}

fn f522() {
    let v = 522;
}

fn f523() {
    let v = 523;
}

fn f524() {
    let v = 524;
}

fn f525() {
    let v = 525;
}

fn f526() {
    let v = 526;
}

fn f527() {
    let v = 527;
}

fn f528() {
    let v = 528;
}

fn f529() {
    let v = 529;
}

fn f530() {
    let v = 530;
}

fn f531() {
    let v = 531;
}

fn f532() {
    let v = 532;
}

fn f533() {
    let v = 533;
}

fn f534() {
    let v = 534;
}

fn f535() {
    let v = 535;
}

fn f536() {
    let v = 536;
}

fn f537() {
    let v = 537;
}

fn f538() {
    let v = 538;
}

fn f539() {
    let v = 539;
}

fn f540() {
    let v = 540;
}

fn f541() {
    let v = 541;
}

fn f542() {
    let v = 542;
}

fn f543() {
    let v = 543;
}

fn f544() {
    let v = 544;
}

fn f545() {
    let v = 545;
}

fn f546() {
    let v = 546;
}

fn f547() {
    let v = 547;
}

fn f548() {
    let v = 548;
}

fn f549() {
    let v = 549;
}

fn f550() {
    let v = 550;
}

fn f551() {
    let v = 551;
}

fn f552() {
    let v = 552;
}

fn f553() {
    let v = 553;
}

fn f554() {
    let v = 554;
}

fn f555() {
    let v = 555;
}

fn f556() {
    let v = 556;
}

fn f557() {
    let v = 557;
}

fn f558() {
    let v = 558;
}

fn f559() {
    let v = 559;
}

fn f560() {
    let v = 560;
}

fn f561() {
    let v = 561;
}

fn f562() {
    let v = 562;
}

fn f563() {
    let v = 563;
}

fn f564() {
    let v = 564;
}

fn f565() {
    let v = 565;
}

fn f566() {
    let v = 566;
}

fn f567() {
    let v = 567;
}

fn f568() {
    let v = 568;
}

fn f569() {
    let v = 569;
}

fn f570() {
    let v = 570;
}

fn f571() {
    let v = 571;
}

fn f572() {
    let v = 572;
}

fn f573() {
    let v = 573;
}

fn f574() {
    let v = 574;
}

fn f575() {
    let v = 575;
}

fn f576() {
    let v = 576;
}

fn f577() {
    let v = 577;
}

fn f578() {
    let v = 578;
}

fn f579() {
    let v = 579;
}

fn f580() {
    let v = 580;
}

fn f581() {
    let v = 581;
}

fn f582() {
    let v = 582;
}

fn f583() {
    let v = 583;
}

fn f584() {
    let v = 584;
}

fn f585() {
    let v = 585;
}

fn f586() {
    let v = 586;
}

fn f587() {
    let v = 587;
}

fn f588() {
    let v = 588;
}

fn f589() {
    let v = 589;
}

fn f590() {
    let v = 590;
}

fn f591() {
    let v = 591;
}

fn f592() {
    let v = 592;
}

fn f593() {
    let v = 593;
}

fn f594() {
    let v = 594;
}

fn f595() {
    let v = 595;
}

fn f596() {
    let v = 596;
}

fn f597() {
    let v = 597;
}

fn f598() {
    let v = 598;
}

fn f599() {
    let v = 599;
}

fn f600() {
    let v = 600;
}

fn f601() {
    let v = 601;
}

fn f602() {
    let v = 602;
}

fn f603() {
    let v = 603;
}

fn f604() {
    let v = 604;
}

fn f605() {
    let v = 605;
}

fn f606() {
    let v = 606;
}

fn f607() {
    let v = 607;
}

fn f608() {
    let v = 608;
}

fn f609() {
    let v = 609;
}

fn f610() {
    let v = 610;
}

fn f611() {
    let v = 611;
}

fn f612() {
    let v = 612;
}

fn f613() {
    let v = 613;
}

fn f614() {
    let v = 614;
}

fn f615() {
    let v = 615;
}

fn f616() {
    let v = 616;
}

fn f617() {
    let v = 617;
}

fn f618() {
    let v = 618;
}

fn f619() {
    let v = 619;
}

fn f620() {
    let v = 620;
}

fn f621() {
    let v = 621;
}

fn f622() {
    let v = 622;
}

fn f623() {
    let v = 623;
}

fn f624() {
    let v = 624;
}

fn f625() {
    let v = 625;
}

fn f626() {
    let v = 626;
}

fn f627() {
    let v = 627;
}

fn f628() {
    let v = 628;
}

fn f629() {
    let v = 629;
}

fn f630() {
    let v = 630;
}

fn f631() {
    let v = 631;
}

fn f632() {
    let v = 632;
}

fn f633() {
    let v = 633;
}

fn f634() {
    let v = 634;
}

fn f635() {
    let v = 635;
}

fn f636() {
    let v = 636;
}

fn f637() {
    let v = 637;
}

fn f638() {
    let v = 638;
}

fn f639() {
    let v = 639;
}

fn f640() {
    let v = 640;
}

fn f641() {
    let v = 641;
}

fn f642() {
    let v = 642;
}

fn f643() {
    let v = 643;
}

fn f644() {
    let v = 644;
}

fn f645() {
    let v = 645;
}

fn f646() {
    let v = 646;
}

fn f647() {
    let v = 647;
}

fn f648() {
    let v = 648;
}

fn f649() {
    let v = 649;
}

fn f650() {
    let v = 650;
}

fn f651() {
    let v = 651;
}

fn f652() {
    let v = 652;
}

fn f653() {
    let v = 653;
}

fn f654() {
    let v = 654;
}

fn f655() {
    let v = 655;
}

fn f656() {
    let v = 656;
}

fn f657() {
    let v = 657;
}

fn f658() {
    let v = 658;
}

fn f659() {
    let v = 659;
}

fn f660() {
    let v = 660;
}

fn f661() {
    let v = 661;
}

fn f662() {
    let v = 662;
}

fn f663() {
    let v = 663;
}

fn f664() {
    let v = 664;
}

fn f665() {
    let v = 665;
}

fn f666() {
    let v = 666;
}

fn f667() {
    let v = 667;
}

fn f668() {
    let v = 668;
}

fn f669() {
    let v = 669;
}

fn f670() {
    let v = 670;
}

fn f671() {
    let v = 671;
}

fn f672() {
    let v = 672;
}

fn f673() {
    let v = 673;
}

fn f674() {
    let v = 674;
}

fn f675() {
    let v = 675;
}

fn f676() {
    let v = 676;
}

fn f677() {
    let v = 677;
}

fn f678() {
    let v = 678;
}

fn f679() {
    let v = 679;
}

fn f680() {
    let v = 680;
}

fn f681() {
    let v = 681;
}

fn f682() {
    let v = 682;
}

fn f683() {
    let v = 683;
}

fn f684() {
    let v = 684;
}

fn f685() {
    let v = 685;
}

fn f686() {
    let v = 686;
}

fn f687() {
    let v = 687;
}

fn f688() {
    let v = 688;
}

fn f689() {
    let v = 689;
}

fn f690() {
    let v = 690;
}

fn f691() {
    let v = 691;
}

fn f692() {
    let v = 692;
}

fn f693() {
    let v = 693;
}

fn f694() {
    let v = 694;
}

fn f695() {
    let v = 695;
}

fn f696() {
    let v = 696;
}

fn f697() {
    let v = 697;
}

fn f698() {
    let v = 698;
}

fn f699() {
    let v = 699;
}

fn f700() {
    let v = 700;
}

fn f701() {
    let v = 701;
}

fn f702() {
    let v = 702;
}

fn f703() {
    let v = 703;
}

fn f704() {
    let v = 704;
}

fn f705() {
    let v = 705;
}

fn f706() {
    let v = 706;
}

fn f707() {
    let v = 707;
}

fn f708() {
    let v = 708;
}

fn f709() {
    let v = 709;
}

fn f710() {
    let v = 710;
}

fn f711() {
    let v = 711;
}

fn f712() {
    let v = 712;
}

fn f713() {
    let v = 713;
}

fn f714() {
    let v = 714;
}

fn f715() {
    let v = 715;
}

fn f716() {
    let v = 716;
}

fn f717() {
    let v = 717;
}

fn f718() {
    let v = 718;
}

fn f719() {
    let v = 719;
}

fn f720() {
    let v = 720;
}

fn f721() {
    let v = 721;
}

fn f722() {
    let v = 722;
}

fn f723() {
    let v = 723;
}

fn f724() {
    let v = 724;
}

fn f725() {
    let v = 725;
}

fn f726() {
    let v = 726;
}

fn f727() {
    let v = 727;
}

fn f728() {
    let v = 728;
}

fn f729() {
    let v = 729;
}

fn f730() {
    let v = 730;
}

fn f731() {
    let v = 731;
}

fn f732() {
    let v = 732;
}

fn f733() {
    let v = 733;
}

fn f734() {
    let v = 734;
}

fn f735() {
    let v = 735;
}

fn f736() {
    let v = 736;
}

fn f737() {
    let v = 737;
}

fn f738() {
    let v = 738;
}

fn f739() {
    let v = 739;
}

fn f740() {
    let v = 740;
}

fn f741() {
    let v = 741;
}

fn f742() {
    let v = 742;
}

fn f743() {
    let v = 743;
}

fn f744() {
    let v = 744;
}

fn f745() {
    let v = 745;
}

fn f746() {
    let v = 746;
}

fn f747() {
    let v = 747;
}

fn f748() {
    let v = 748;
}

fn f749() {
    let v = 749;
}

fn f750() {
    let v = 750;
}

fn f751() {
    let v = 751;
}

fn f752() {
    let v = 752;
}

fn f753() {
    let v = 753;
}

fn f754() {
    let v = 754;
}

fn f755() {
    let v = 755;
}

fn f756() {
    let v = 756;
}

fn f757() {
    let v = 757;
}

fn f758() {
    let v = 758;
}

fn f759() {
    let v = 759;
}

fn f760() {
    let v = 760;
}

fn f761() {
    let v = 761;
}

fn f762() {
    let v = 762;
}

fn f763() {
    let v = 763;
}

fn f764() {
    let v = 764;
}

fn f765() {
    let v = 765;
}

fn f766() {
    let v = 766;
}

fn f767() {
    let v = 767;
}

fn f768() {
    let v = 768;
}

fn f769() {
    let v = 769;
}

fn f770() {
    let v = 770;
}

fn f771() {
    let v = 771;
}

fn f772() {
    let v = 772;
}

fn f773() {
    let v = 773;
}

fn f774() {
    let v = 774;
}

fn f775() {
    let v = 775;
}

fn f776() {
    let v = 776;
}

fn f777() {
    let v = 777;
}

fn f778() {
    let v = 778;
}

fn f779() {
    let v = 779;
}

fn f780() {
    let v = 780;
}

fn f781() {
    let v = 781;
}

fn f782() {
    let v = 782;
}

fn f783() {
    let v = 783;
}

fn f784() {
    let v = 784;
}

fn f785() {
    let v = 785;
}

fn f786() {
    let v = 786;
}

fn f787() {
    let v = 787;
}

fn f788() {
    let v = 788;
}

fn f789() {
    let v = 789;
}

fn f790() {
    let v = 790;
}

fn f791() {
    let v = 791;
}

fn f792() {
    let v = 792;
}

fn f793() {
    let v = 793;
}

fn f794() {
    let v = 794;
}

fn f795() {
    let v = 795;
}

fn f796() {
    let v = 796;
}

fn f797() {
    let v = 797;
}

fn f798() {
    let v = 798;
}

fn f799() {
    let v = 799;
}

fn f800() {
    let v = 800;
}

fn f801() {
    let v = 801;
}

fn f802() {
    let v = 802;
}

fn f803() {
    let v = 803;
}

fn f804() {
    let v = 804;
}

fn f805() {
    let v = 805;
}

fn f806() {
    let v = 806;
}

fn f807() {
    let v = 807;
}

fn f808() {
    let v = 808;
}

fn f809() {
    let v = 809;
}

fn f810() {
    let v = 810;
}

fn f811() {
    let v = 811;
}

fn f812() {
    let v = 812;
}

fn f813() {
    let v = 813;
}

fn f814() {
    let v = 814;
}

fn f815() {
    let v = 815;
}

fn f816() {
    let v = 816;
}

fn f817() {
    let v = 817;
}

fn f818() {
    let v = 818;
}

fn f819() {
    let v = 819;
}

fn f820() {
    let v = 820;
}

fn f821() {
    let v = 821;
}

fn f822() {
    let v = 822;
}

fn f823() {
    let v = 823;
}

fn f824() {
    let v = 824;
}

fn f825() {
    let v = 825;
}

fn f826() {
    let v = 826;
}

fn f827() {
    let v = 827;
}

fn f828() {
    let v = 828;
}

fn f829() {
    let v = 829;
}

fn f830() {
    let v = 830;
}

fn f831() {
    let v = 831;
}

fn f832() {
    let v = 832;
}

fn f833() {
    let v = 833;
}

fn f834() {
    let v = 834;
}

fn f835() {
    let v = 835;
}

fn f836() {
    let v = 836;
}

fn f837() {
    let v = 837;
}

fn f838() {
    let v = 838;
}

fn f839() {
    let v = 839;
}

fn f840() {
    let v = 840;
}

fn f841() {
    let v = 841;
}

fn f842() {
    let v = 842;
}

fn f843() {
    let v = 843;
}

fn f844() {
    let v = 844;
}

fn f845() {
    let v = 845;
}

fn f846() {
    let v = 846;
}

fn f847() {
    let v = 847;
}

fn f848() {
    let v = 848;
}

fn f849() {
    let v = 849;
}

fn f850() {
    let v = 850;
}

fn f851() {
    let v = 851;
}

fn f852() {
    let v = 852;
}

fn f853() {
    let v = 853;
}

fn f854() {
    let v = 854;
}

fn f855() {
    let v = 855;
}

fn f856() {
    let v = 856;
}

fn f857() {
    let v = 857;
}

fn f858() {
    let v = 858;
}

fn f859() {
    let v = 859;
}

fn f860() {
    let v = 860;
}

fn f861() {
    let v = 861;
}

fn f862() {
    let v = 862;
}

fn f863() {
    let v = 863;
}

fn f864() {
    let v = 864;
}

fn f865() {
    let v = 865;
}

fn f866() {
    let v = 866;
}

fn f867() {
    let v = 867;
}

fn f868() {
    let v = 868;
}

fn f869() {
    let v = 869;
}

fn f870() {
    let v = 870;
}

fn f871() {
    let v = 871;
}

fn f872() {
    let v = 872;
}

fn f873() {
    let v = 873;
}

fn f874() {
    let v = 874;
}

fn f875() {
    let v = 875;
}

fn f876() {
    let v = 876;
}

fn f877() {
    let v = 877;
}

fn f878() {
    let v = 878;
}

fn f879() {
    let v = 879;
}

fn f880() {
    let v = 880;
}

fn f881() {
    let v = 881;
}

fn f882() {
    let v = 882;
}

fn f883() {
    let v = 883;
}

fn f884() {
    let v = 884;
}

fn f885() {
    let v = 885;
}

fn f886() {
    let v = 886;
}

fn f887() {
    let v = 887;
}

fn f888() {
    let v = 888;
}

fn f889() {
    let v = 889;
}

fn f890() {
    let v = 890;
}

fn f891() {
    let v = 891;
}

fn f892() {
    let v = 892;
}

fn f893() {
    let v = 893;
}

fn f894() {
    let v = 894;
}

fn f895() {
    let v = 895;
}

fn f896() {
    let v = 896;
}

fn f897() {
    let v = 897;
}

fn f898() {
    let v = 898;
}

fn f899() {
    let v = 899;
}

fn f900() {
    let v = 900;
}

fn f901() {
    let v = 901;
}

fn f902() {
    let v = 902;
}

fn f903() {
    let v = 903;
}

fn f904() {
    let v = 904;
}

fn f905() {
    let v = 905;
}

fn f906() {
    let v = 906;
}

fn f907() {
    let v = 907;
}

fn f908() {
    let v = 908;
}

fn f909() {
    let v = 909;
}

fn f910() {
    let v = 910;
}

fn f911() {
    let v = 911;
}

fn f912() {
    let v = 912;
}

fn f913() {
    let v = 913;
}

fn f914() {
    let v = 914;
}

fn f915() {
    let v = 915;
}

fn f916() {
    let v = 916;
}

fn f917() {
    let v = 917;
}

fn f918() {
    let v = 918;
}

fn f919() {
    let v = 919;
}

fn f920() {
    let v = 920;
}

fn f921() {
    let v = 921;
}

fn f922() {
    let v = 922;
}

fn f923() {
    let v = 923;
}

fn f924() {
    let v = 924;
}

fn f925() {
    let v = 925;
}

fn f926() {
    let v = 926;
}

fn f927() {
    let v = 927;
}

fn f928() {
    let v = 928;
}

fn f929() {
    let v = 929;
}

fn f930() {
    let v = 930;
}

fn f931() {
    let v = 931;
}

fn f932() {
    let v = 932;
}

fn f933() {
    let v = 933;
}

fn f934() {
    let v = 934;
}

fn f935() {
    let v = 935;
}

fn f936() {
    let v = 936;
}

fn f937() {
    let v = 937;
}

fn f938() {
    let v = 938;
}

fn f939() {
    let v = 939;
}

fn f940() {
    let v = 940;
}

fn f941() {
    let v = 941;
}

fn f942() {
    let v = 942;
}

fn f943() {
    let v = 943;
}

fn f944() {
    let v = 944;
}

fn f945() {
    let v = 945;
}

fn f946() {
    let v = 946;
}

fn f947() {
    let v = 947;
}

fn f948() {
    let v = 948;
}

fn f949() {
    let v = 949;
}

fn f950() {
    let v = 950;
}

fn f951() {
    let v = 951;
}

fn f952() {
    let v = 952;
}

fn f953() {
    let v = 953;
}

fn f954() {
    let v = 954;
}

fn f955() {
    let v = 955;
}

fn f956() {
    let v = 956;
}

fn f957() {
    let v = 957;
}

fn f958() {
    let v = 958;
}

fn f959() {
    let v = 959;
}

fn f960() {
    let v = 960;
}

fn f961() {
    let v = 961;
}

fn f962() {
    let v = 962;
}

fn f963() {
    let v = 963;
}

fn f964() {
    let v = 964;
}

fn f965() {
    let v = 965;
}

fn f966() {
    let v = 966;
}

fn f967() {
    let v = 967;
}

fn f968() {
    let v = 968;
}

fn f969() {
    let v = 969;
}

fn f970() {
    let v = 970;
}

fn f971() {
    let v = 971;
}

fn f972() {
    let v = 972;
}

fn f973() {
    let v = 973;
}

fn f974() {
    let v = 974;
}

fn f975() {
    let v = 975;
}

fn f976() {
    let v = 976;
}

fn f977() {
    let v = 977;
}

fn f978() {
    let v = 978;
}

fn f979() {
    let v = 979;
}

fn f980() {
    let v = 980;
}

fn f981() {
    let v = 981;
}

fn f982() {
    let v = 982;
}

fn f983() {
    let v = 983;
}

fn f984() {
    let v = 984;
}

fn f985() {
    let v = 985;
}

fn f986() {
    let v = 986;
}

fn f987() {
    let v = 987;
}

fn f988() {
    let v = 988;
}

fn f989() {
    let v = 989;
}

fn f990() {
    let v = 990;
}

fn f991() {
    let v = 991;
}

fn f992() {
    let v = 992;
}

fn f993() {
    let v = 993;
}

fn f994() {
    let v = 994;
}

fn f995() {
    let v = 995;
}

fn f996() {
    let v = 996;
}

fn f997() {
    let v = 997;
}

fn f998() {
    let v = 998;
}

fn f999() {
    let v = 999;
}

fn f1000() {
    let v = 1000;
}

fn f1001() {
    let v = 1001;
}

fn f1002() {
    let v = 1002;
}

fn f1003() {
    let v = 1003;
}

fn f1004() {
    let v = 1004;
}

fn f1005() {
    let v = 1005;
}

fn f1006() {
    let v = 1006;
}

fn f1007() {
    let v = 1007;
}

fn f1008() {
    let v = 1008;
}

fn f1009() {
    let v = 1009;
}

fn f1010() {
    let v = 1010;
}

fn f1011() {
    let v = 1011;
}

fn f1012() {
    let v = 1012;
}

fn f1013() {
    let v = 1013;
}

fn f1014() {
    let v = 1014;
}

fn f1015() {
    let v = 1015;
}

fn f1016() {
    let v = 1016;
}

fn f1017() {
    let v = 1017;
}

fn f1018() {
    let v = 1018;
}

fn f1019() {
    let v = 1019;
}

fn f1020() {
    let v = 1020;
}

fn f1021() {
    let v = 1021;
}

fn f1022() {
    let v = 1022;
}

fn f1023() {
    let v = 1023;
}

fn f1024() {
    let v = 1024;
}

fn f1025() {
    let v = 1025;
}

fn f1026() {
    let v = 1026;
}

fn f1027() {
    let v = 1027;
}

fn f1028() {
    let v = 1028;
}

fn f1029() {
    let v = 1029;
}

fn f1030() {
    let v = 1030;
}

fn f1031() {
    let v = 1031;
}

fn f1032() {
    let v = 1032;
}

fn f1033() {
    let v = 1033;
}

fn f1034() {
    let v = 1034;
}

fn f1035() {
    let v = 1035;
}

fn f1036() {
    let v = 1036;
}

fn f1037() {
    let v = 1037;
}

fn f1038() {
    let v = 1038;
}

fn f1039() {
    let v = 1039;
}

fn f1040() {
    let v = 1040;
}

fn f1041() {
    let v = 1041;
}

fn f1042() {
    let v = 1042;
}

fn f1043() {
    let v = 1043;
}

fn f1044() {
    let v = 1044;
}

fn f1045() {
    let v = 1045;
}

fn f1046() {
    let v = 1046;
}

fn f1047() {
    let v = 1047;
}

fn f1048() {
    let v = 1048;
}

fn f1049() {
    let v = 1049;
}

fn f1050() {
    let v = 1050;
}

fn f1051() {
    let v = 1051;
}

fn f1052() {
    let v = 1052;
}

fn f1053() {
    let v = 1053;
}

fn f1054() {
    let v = 1054;
}

fn f1055() {
    let v = 1055;
}

fn f1056() {
    let v = 1056;
}

fn f1057() {
    let v = 1057;
}

fn f1058() {
    let v = 1058;
}

fn f1059() {
    let v = 1059;
}

fn f1060() {
    let v = 1060;
}

fn f1061() {
    let v = 1061;
}

fn f1062() {
    let v = 1062;
}

fn f1063() {
    let v = 1063;
}

fn f1064() {
    let v = 1064;
}

fn f1065() {
    let v = 1065;
}

fn f1066() {
    let v = 1066;
}

fn f1067() {
    let v = 1067;
}

fn f1068() {
    let v = 1068;
}

fn f1069() {
    let v = 1069;
}

fn f1070() {
    let v = 1070;
}

fn f1071() {
    let v = 1071;
}

fn f1072() {
    let v = 1072;
}

fn f1073() {
    let v = 1073;
}

fn f1074() {
    let v = 1074;
}

fn f1075() {
    let v = 1075;
}

fn f1076() {
    let v = 1076;
}

fn f1077() {
    let v = 1077;
}

fn f1078() {
    let v = 1078;
}

fn f1079() {
    let v = 1079;
}

fn f1080() {
    let v = 1080;
}

fn f1081() {
    let v = 1081;
}

fn f1082() {
    let v = 1082;
}

fn f1083() {
    let v = 1083;
}

fn f1084() {
    let v = 1084;
}

fn f1085() {
    let v = 1085;
}

fn f1086() {
    let v = 1086;
}

fn f1087() {
    let v = 1087;
}

fn f1088() {
    let v = 1088;
}

fn f1089() {
    let v = 1089;
}

fn f1090() {
    let v = 1090;
}

fn f1091() {
    let v = 1091;
}

fn f1092() {
    let v = 1092;
}

fn f1093() {
    let v = 1093;
}

fn f1094() {
    let v = 1094;
}

fn f1095() {
    let v = 1095;
}

fn f1096() {
    let v = 1096;
}

fn f1097() {
    let v = 1097;
}

fn f1098() {
    let v = 1098;
}

fn f1099() {
    let v = 1099;
}

fn f1100() {
    let v = 1100;
}

fn f1101() {
    let v = 1101;
}

fn f1102() {
    let v = 1102;
}

fn f1103() {
    let v = 1103;
}

fn f1104() {
    let v = 1104;
}

fn f1105() {
    let v = 1105;
}

fn f1106() {
    let v = 1106;
}

fn f1107() {
    let v = 1107;
}

fn f1108() {
    let v = 1108;
}

fn f1109() {
    let v = 1109;
}

fn f1110() {
    let v = 1110;
}

fn f1111() {
    let v = 1111;
}

fn f1112() {
    let v = 1112;
}

fn f1113() {
    let v = 1113;
}

fn f1114() {
    let v = 1114;
}

fn f1115() {
    let v = 1115;
}

fn f1116() {
    let v = 1116;
}

fn f1117() {
    let v = 1117;
}

fn f1118() {
    let v = 1118;
}

fn f1119() {
    let v = 1119;
}

fn f1120() {
    let v = 1120;
}

fn f1121() {
    let v = 1121;
}

fn f1122() {
    let v = 1122;
}

fn f1123() {
    let v = 1123;
}

fn f1124() {
    let v = 1124;
}

fn f1125() {
    let v = 1125;
}

fn f1126() {
    let v = 1126;
}

fn f1127() {
    let v = 1127;
}

fn f1128() {
    let v = 1128;
}

fn f1129() {
    let v = 1129;
}

fn f1130() {
    let v = 1130;
}

fn f1131() {
    let v = 1131;
}

fn f1132() {
    let v = 1132;
}

fn f1133() {
    let v = 1133;
}

fn f1134() {
    let v = 1134;
}

fn f1135() {
    let v = 1135;
}

fn f1136() {
    let v = 1136;
}

fn f1137() {
    let v = 1137;
}

fn f1138() {
    let v = 1138;
}

fn f1139() {
    let v = 1139;
}

fn f1140() {
    let v = 1140;
}

fn f1141() {
    let v = 1141;
}

fn f1142() {
    let v = 1142;
}

fn f1143() {
    let v = 1143;
}

fn f1144() {
    let v = 1144;
}

fn f1145() {
    let v = 1145;
}

fn f1146() {
    let v = 1146;
}

fn f1147() {
    let v = 1147;
}

fn f1148() {
    let v = 1148;
}

fn f1149() {
    let v = 1149;
}

fn f1150() {
    let v = 1150;
}

fn f1151() {
    let v = 1151;
}

fn f1152() {
    let v = 1152;
}

fn f1153() {
    let v = 1153;
}

fn f1154() {
    let v = 1154;
}

fn f1155() {
    let v = 1155;
}

fn f1156() {
    let v = 1156;
}

fn f1157() {
    let v = 1157;
}

fn f1158() {
    let v = 1158;
}

fn f1159() {
    let v = 1159;
}

fn f1160() {
    let v = 1160;
}

fn f1161() {
    let v = 1161;
}

fn f1162() {
    let v = 1162;
}

fn f1163() {
    let v = 1163;
}

fn f1164() {
    let v = 1164;
}

fn f1165() {
    let v = 1165;
}

fn f1166() {
    let v = 1166;
}

fn f1167() {
    let v = 1167;
}

fn f1168() {
    let v = 1168;
}

fn f1169() {
    let v = 1169;
}

fn f1170() {
    let v = 1170;
}

fn f1171() {
    let v = 1171;
}

fn f1172() {
    let v = 1172;
}

fn f1173() {
    let v = 1173;
}

fn f1174() {
    let v = 1174;
}

fn f1175() {
    let v = 1175;
}

fn f1176() {
    let v = 1176;
}

fn f1177() {
    let v = 1177;
}

fn f1178() {
    let v = 1178;
}

fn f1179() {
    let v = 1179;
}

fn f1180() {
    let v = 1180;
}

fn f1181() {
    let v = 1181;
}

fn f1182() {
    let v = 1182;
}

fn f1183() {
    let v = 1183;
}

fn f1184() {
    let v = 1184;
}

fn f1185() {
    let v = 1185;
}

fn f1186() {
    let v = 1186;
}

fn f1187() {
    let v = 1187;
}

fn f1188() {
    let v = 1188;
}

fn f1189() {
    let v = 1189;
}

fn f1190() {
    let v = 1190;
}

fn f1191() {
    let v = 1191;
}

fn f1192() {
    let v = 1192;
}

fn f1193() {
    let v = 1193;
}

fn f1194() {
    let v = 1194;
}

fn f1195() {
    let v = 1195;
}

fn f1196() {
    let v = 1196;
}

fn f1197() {
    let v = 1197;
}

fn f1198() {
    let v = 1198;
}

fn f1199() {
    let v = 1199;
}

fn f1200() {
    let v = 1200;
}

fn f1201() {
    let v = 1201;
}

fn f1202() {
    let v = 1202;
}

fn f1203() {
    let v = 1203;
}

fn f1204() {
    let v = 1204;
}

fn f1205() {
    let v = 1205;
}

fn f1206() {
    let v = 1206;
}

fn f1207() {
    let v = 1207;
}

fn f1208() {
    let v = 1208;
}

fn f1209() {
    let v = 1209;
}

fn f1210() {
    let v = 1210;
}

fn f1211() {
    let v = 1211;
}

fn f1212() {
    let v = 1212;
}

fn f1213() {
    let v = 1213;
}

fn f1214() {
    let v = 1214;
}

fn f1215() {
    let v = 1215;
}

fn f1216() {
    let v = 1216;
}

fn f1217() {
    let v = 1217;
}

fn f1218() {
    let v = 1218;
}

fn f1219() {
    let v = 1219;
}

fn f1220() {
    let v = 1220;
}

fn f1221() {
    let v = 1221;
}

fn f1222() {
    let v = 1222;
}

fn f1223() {
    let v = 1223;
}

fn f1224() {
    let v = 1224;
}

fn f1225() {
    let v = 1225;
}

fn f1226() {
    let v = 1226;
}

fn f1227() {
    let v = 1227;
}

fn f1228() {
    let v = 1228;
}

fn f1229() {
    let v = 1229;
}

fn f1230() {
    let v = 1230;
}

fn f1231() {
    let v = 1231;
}

fn f1232() {
    let v = 1232;
}

fn f1233() {
    let v = 1233;
}

fn f1234() {
    let v = 1234;
}

fn f1235() {
    let v = 1235;
}

fn f1236() {
    let v = 1236;
}

fn f1237() {
    let v = 1237;
}

fn f1238() {
    let v = 1238;
}

fn f1239() {
    let v = 1239;
}

fn f1240() {
    let v = 1240;
}

fn f1241() {
    let v = 1241;
}

fn f1242() {
    let v = 1242;
}

fn f1243() {
    let v = 1243;
}

fn f1244() {
    let v = 1244;
}

fn f1245() {
    let v = 1245;
}

fn f1246() {
    let v = 1246;
}

fn f1247() {
    let v = 1247;
}

fn f1248() {
    let v = 1248;
}

fn f1249() {
    let v = 1249;
}

fn f1250() {
    let v = 1250;
}

fn f1251() {
    let v = 1251;
}

fn f1252() {
    let v = 1252;
}

fn f1253() {
    let v = 1253;
}

fn f1254() {
    let v = 1254;
}

fn f1255() {
    let v = 1255;
}

fn f1256() {
    let v = 1256;
}

fn f1257() {
    let v = 1257;
}

fn f1258() {
    let v = 1258;
}

fn f1259() {
    let v = 1259;
}

fn f1260() {
    let v = 1260;
}

fn f1261() {
    let v = 1261;
}

fn f1262() {
    let v = 1262;
}

fn f1263() {
    let v = 1263;
}

fn f1264() {
    let v = 1264;
}

fn f1265() {
    let v = 1265;
}

fn f1266() {
    let v = 1266;
}

fn f1267() {
    let v = 1267;
}

fn f1268() {
    let v = 1268;
}

fn f1269() {
    let v = 1269;
}

fn f1270() {
    let v = 1270;
}

fn f1271() {
    let v = 1271;
}

fn f1272() {
    let v = 1272;
}

fn f1273() {
    let v = 1273;
}

fn f1274() {
    let v = 1274;
}

fn f1275() {
    let v = 1275;
}

fn f1276() {
    let v = 1276;
}

fn f1277() {
    let v = 1277;
}

fn f1278() {
    let v = 1278;
}

fn f1279() {
    let v = 1279;
}

fn f1280() {
    let v = 1280;
}

fn f1281() {
    let v = 1281;
}

fn f1282() {
    let v = 1282;
}

fn f1283() {
    let v = 1283;
}

fn f1284() {
    let v = 1284;
}

fn f1285() {
    let v = 1285;
}

fn f1286() {
    let v = 1286;
}

fn f1287() {
    let v = 1287;
}

fn f1288() {
    let v = 1288;
}

fn f1289() {
    let v = 1289;
}

fn f1290() {
    let v = 1290;
}

fn f1291() {
    let v = 1291;
}

fn f1292() {
    let v = 1292;
}

fn f1293() {
    let v = 1293;
}

fn f1294() {
    let v = 1294;
}

fn f1295() {
    let v = 1295;
}

fn f1296() {
    let v = 1296;
}

fn f1297() {
    let v = 1297;
}

fn f1298() {
    let v = 1298;
}

fn f1299() {
    let v = 1299;
}

fn f1300() {
    let v = 1300;
}

fn f1301() {
    let v = 1301;
}

fn f1302() {
    let v = 1302;
}

fn f1303() {
    let v = 1303;
}

fn f1304() {
    let v = 1304;
}

fn f1305() {
    let v = 1305;
}

fn f1306() {
    let v = 1306;
}

fn f1307() {
    let v = 1307;
}

fn f1308() {
    let v = 1308;
}

fn f1309() {
    let v = 1309;
}

fn f1310() {
    let v = 1310;
}

fn f1311() {
    let v = 1311;
}

fn f1312() {
    let v = 1312;
}

fn f1313() {
    let v = 1313;
}

fn f1314() {
    let v = 1314;
}

fn f1315() {
    let v = 1315;
}

fn f1316() {
    let v = 1316;
}

fn f1317() {
    let v = 1317;
}

fn f1318() {
    let v = 1318;
}

fn f1319() {
    let v = 1319;
}

fn f1320() {
    let v = 1320;
}

fn f1321() {
    let v = 1321;
}

fn f1322() {
    let v = 1322;
}

fn f1323() {
    let v = 1323;
}

fn f1324() {
    let v = 1324;
}

fn f1325() {
    let v = 1325;
}

fn f1326() {
    let v = 1326;
}

fn f1327() {
    let v = 1327;
}

fn f1328() {
    let v = 1328;
}

fn f1329() {
    let v = 1329;
}

fn f1330() {
    let v = 1330;
}

fn f1331() {
    let v = 1331;
}

fn f1332() {
    let v = 1332;
}

fn f1333() {
    let v = 1333;
}

fn f1334() {
    let v = 1334;
}

fn f1335() {
    let v = 1335;
}

fn f1336() {
    let v = 1336;
}

fn f1337() {
    let v = 1337;
}

fn f1338() {
    let v = 1338;
}

fn f1339() {
    let v = 1339;
}

fn f1340() {
    let v = 1340;
}

fn f1341() {
    let v = 1341;
}

fn f1342() {
    let v = 1342;
}

fn f1343() {
    let v = 1343;
}

fn f1344() {
    let v = 1344;
}

fn f1345() {
    let v = 1345;
}

fn f1346() {
    let v = 1346;
}

fn f1347() {
    let v = 1347;
}

fn f1348() {
    let v = 1348;
}

fn f1349() {
    let v = 1349;
}

fn f1350() {
    let v = 1350;
}

fn f1351() {
    let v = 1351;
}

fn f1352() {
    let v = 1352;
}

fn f1353() {
    let v = 1353;
}

fn f1354() {
    let v = 1354;
}

fn f1355() {
    let v = 1355;
}

fn f1356() {
    let v = 1356;
}

fn f1357() {
    let v = 1357;
}

fn f1358() {
    let v = 1358;
}

fn f1359() {
    let v = 1359;
}

fn f1360() {
    let v = 1360;
}

fn f1361() {
    let v = 1361;
}

fn f1362() {
    let v = 1362;
}

fn f1363() {
    let v = 1363;
}

fn f1364() {
    let v = 1364;
}

fn f1365() {
    let v = 1365;
}

fn f1366() {
    let v = 1366;
}

fn f1367() {
    let v = 1367;
}

fn f1368() {
    let v = 1368;
}

fn f1369() {
    let v = 1369;
}

fn f1370() {
    let v = 1370;
}

fn f1371() {
    let v = 1371;
}

fn f1372() {
    let v = 1372;
}

fn f1373() {
    let v = 1373;
}

fn f1374() {
    let v = 1374;
}

fn f1375() {
    let v = 1375;
}

fn f1376() {
    let v = 1376;
}

fn f1377() {
    let v = 1377;
}

fn f1378() {
    let v = 1378;
}

fn f1379() {
    let v = 1379;
}

fn f1380() {
    let v = 1380;
}

fn f1381() {
    let v = 1381;
}

fn f1382() {
    let v = 1382;
}

fn f1383() {
    let v = 1383;
}

fn f1384() {
    let v = 1384;
}

fn f1385() {
    let v = 1385;
}

fn f1386() {
    let v = 1386;
}

fn f1387() {
    let v = 1387;
}

fn f1388() {
    let v = 1388;
}

fn f1389() {
    let v = 1389;
}

fn f1390() {
    let v = 1390;
}

fn f1391() {
    let v = 1391;
}

fn f1392() {
    let v = 1392;
}

fn f1393() {
    let v = 1393;
}

fn f1394() {
    let v = 1394;
}

fn f1395() {
    let v = 1395;
}

fn f1396() {
    let v = 1396;
}

fn f1397() {
    let v = 1397;
}

fn f1398() {
    let v = 1398;
}

fn f1399() {
    let v = 1399;
}

fn f1400() {
    let v = 1400;
}

fn f1401() {
    let v = 1401;
}

fn f1402() {
    let v = 1402;
}

fn f1403() {
    let v = 1403;
}

fn f1404() {
    let v = 1404;
}

fn f1405() {
    let v = 1405;
}

fn f1406() {
    let v = 1406;
}

fn f1407() {
    let v = 1407;
}

fn f1408() {
    let v = 1408;
}

fn f1409() {
    let v = 1409;
}

fn f1410() {
    let v = 1410;
}

fn f1411() {
    let v = 1411;
}

fn f1412() {
    let v = 1412;
}

fn f1413() {
    let v = 1413;
}

fn f1414() {
    let v = 1414;
}

fn f1415() {
    let v = 1415;
}

fn f1416() {
    let v = 1416;
}

fn f1417() {
    let v = 1417;
}

fn f1418() {
    let v = 1418;
}

fn f1419() {
    let v = 1419;
}

fn f1420() {
    let v = 1420;
}

fn f1421() {
    let v = 1421;
}

fn f1422() {
    let v = 1422;
}

fn f1423() {
    let v = 1423;
}

fn f1424() {
    let v = 1424;
}

fn f1425() {
    let v = 1425;
}

fn f1426() {
    let v = 1426;
}

fn f1427() {
    let v = 1427;
}

fn f1428() {
    let v = 1428;
}

fn f1429() {
    let v = 1429;
}

fn f1430() {
    let v = 1430;
}

fn f1431() {
    let v = 1431;
}

fn f1432() {
    let v = 1432;
}

fn f1433() {
    let v = 1433;
}

fn f1434() {
    let v = 1434;
}

fn f1435() {
    let v = 1435;
}

fn f1436() {
    let v = 1436;
}

fn f1437() {
    let v = 1437;
}

fn f1438() {
    let v = 1438;
}

fn f1439() {
    let v = 1439;
}

fn f1440() {
    let v = 1440;
}

fn f1441() {
    let v = 1441;
}

fn f1442() {
    let v = 1442;
}

fn f1443() {
    let v = 1443;
}

fn f1444() {
    let v = 1444;
}

fn f1445() {
    let v = 1445;
}

fn f1446() {
    let v = 1446;
}

fn f1447() {
    let v = 1447;
}

fn f1448() {
    let v = 1448;
}

fn f1449() {
    let v = 1449;
}

fn f1450() {
    let v = 1450;
}

fn f1451() {
    let v = 1451;
}

fn f1452() {
    let v = 1452;
}

fn f1453() {
    let v = 1453;
}

fn f1454() {
    let v = 1454;
}

fn f1455() {
    let v = 1455;
}

fn f1456() {
    let v = 1456;
}

fn f1457() {
    let v = 1457;
}

fn f1458() {
    let v = 1458;
}

fn f1459() {
    let v = 1459;
}

fn f1460() {
    let v = 1460;
}

fn f1461() {
    let v = 1461;
}

fn f1462() {
    let v = 1462;
}

fn f1463() {
    let v = 1463;
}

fn f1464() {
    let v = 1464;
}

fn f1465() {
    let v = 1465;
}

fn f1466() {
    let v = 1466;
}

fn f1467() {
    let v = 1467;
}

fn f1468() {
    let v = 1468;
}

fn f1469() {
    let v = 1469;
}

fn f1470() {
    let v = 1470;
}

fn f1471() {
    let v = 1471;
}

fn f1472() {
    let v = 1472;
}

fn f1473() {
    let v = 1473;
}

fn f1474() {
    let v = 1474;
}

fn f1475() {
    let v = 1475;
}

fn f1476() {
    let v = 1476;
}

fn f1477() {
    let v = 1477;
}

fn f1478() {
    let v = 1478;
}

fn f1479() {
    let v = 1479;
}

fn f1480() {
    let v = 1480;
}

fn f1481() {
    let v = 1481;
}

fn f1482() {
    let v = 1482;
}

fn f1483() {
    let v = 1483;
}

fn f1484() {
    let v = 1484;
}

fn f1485() {
    let v = 1485;
}

fn f1486() {
    let v = 1486;
}

fn f1487() {
    let v = 1487;
}

fn f1488() {
    let v = 1488;
}

fn f1489() {
    let v = 1489;
}

fn f1490() {
    let v = 1490;
}

fn f1491() {
    let v = 1491;
}

fn f1492() {
    let v = 1492;
}

fn f1493() {
    let v = 1493;
}

fn f1494() {
    let v = 1494;
}

fn f1495() {
    let v = 1495;
}

fn f1496() {
    let v = 1496;
}

fn f1497() {
    let v = 1497;
}

fn f1498() {
    let v = 1498;
}

fn f1499() {
    let v = 1499;
}

fn f1500() {
    let v = 1500;
}

fn f1501() {
    let v = 1501;
}

fn f1502() {
    let v = 1502;
}

fn f1503() {
    let v = 1503;
}

fn f1504() {
    let v = 1504;
}

fn f1505() {
    let v = 1505;
}

fn f1506() {
    let v = 1506;
}

fn f1507() {
    let v = 1507;
}

fn f1508() {
    let v = 1508;
}

fn f1509() {
    let v = 1509;
}

fn f1510() {
    let v = 1510;
}

fn f1511() {
    let v = 1511;
}

fn f1512() {
    let v = 1512;
}

fn f1513() {
    let v = 1513;
}

fn f1514() {
    let v = 1514;
}

fn f1515() {
    let v = 1515;
}

fn f1516() {
    let v = 1516;
}

fn f1517() {
    let v = 1517;
}

fn f1518() {
    let v = 1518;
}

fn f1519() {
    let v = 1519;
}

fn f1520() {
    let v = 1520;
}

fn f1521() {
    let v = 1521;
}

fn f1522() {
    let v = 1522;
}

fn f1523() {
    let v = 1523;
}

fn f1524() {
    let v = 1524;
}

fn f1525() {
    let v = 1525;
}

fn f1526() {
    let v = 1526;
}

fn f1527() {
    let v = 1527;
}

fn f1528() {
    let v = 1528;
}

fn f1529() {
    let v = 1529;
}

fn f1530() {
    let v = 1530;
}

fn f1531() {
    let v = 1531;
}

fn f1532() {
    let v = 1532;
}

fn f1533() {
    let v = 1533;
}

fn f1534() {
    let v = 1534;
}

fn f1535() {
    let v = 1535;
}

fn f1536() {
    let v = 1536;
}

fn f1537() {
    let v = 1537;
}

fn f1538() {
    let v = 1538;
}

fn f1539() {
    let v = 1539;
}

fn f1540() {
    let v = 1540;
}

fn f1541() {
    let v = 1541;
}

fn f1542() {
    let v = 1542;
}

fn f1543() {
    let v = 1543;
}

fn f1544() {
    let v = 1544;
}

fn f1545() {
    let v = 1545;
}

fn f1546() {
    let v = 1546;
}

fn f1547() {
    let v = 1547;
}

fn f1548() {
    let v = 1548;
}

fn f1549() {
    let v = 1549;
}

fn f1550() {
    let v = 1550;
}

fn f1551() {
    let v = 1551;
}

fn f1552() {
    let v = 1552;
}

fn f1553() {
    let v = 1553;
}

fn f1554() {
    let v = 1554;
}

fn f1555() {
    let v = 1555;
}

fn f1556() {
    let v = 1556;
}

fn f1557() {
    let v = 1557;
}

fn f1558() {
    let v = 1558;
}

fn f1559() {
    let v = 1559;
}

fn f1560() {
    let v = 1560;
}

fn f1561() {
    let v = 1561;
}

fn f1562() {
    let v = 1562;
}

fn f1563() {
    let v = 1563;
}

fn f1564() {
    let v = 1564;
}

fn f1565() {
    let v = 1565;
}

fn f1566() {
    let v = 1566;
}

fn f1567() {
    let v = 1567;
}

fn f1568() {
    let v = 1568;
}

fn f1569() {
    let v = 1569;
}

fn f1570() {
    let v = 1570;
}

fn f1571() {
    let v = 1571;
}

fn f1572() {
    let v = 1572;
}

fn f1573() {
    let v = 1573;
}

fn f1574() {
    let v = 1574;
}

fn f1575() {
    let v = 1575;
}

fn f1576() {
    let v = 1576;
}

fn f1577() {
    let v = 1577;
}

fn f1578() {
    let v = 1578;
}

fn f1579() {
    let v = 1579;
}

fn f1580() {
    let v = 1580;
}

fn f1581() {
    let v = 1581;
}

fn f1582() {
    let v = 1582;
}

fn f1583() {
    let v = 1583;
}

fn f1584() {
    let v = 1584;
}

fn f1585() {
    let v = 1585;
}

fn f1586() {
    let v = 1586;
}

fn f1587() {
    let v = 1587;
}

fn f1588() {
    let v = 1588;
}

fn f1589() {
    let v = 1589;
}

fn f1590() {
    let v = 1590;
}

fn f1591() {
    let v = 1591;
}

fn f1592() {
    let v = 1592;
}

fn f1593() {
    let v = 1593;
}

fn f1594() {
    let v = 1594;
}

fn f1595() {
    let v = 1595;
}

fn f1596() {
    let v = 1596;
}

fn f1597() {
    let v = 1597;
}

fn f1598() {
    let v = 1598;
}

fn f1599() {
    let v = 1599;
}

fn f1600() {
    let v = 1600;
}

fn f1601() {
    let v = 1601;
}

fn f1602() {
    let v = 1602;
}

fn f1603() {
    let v = 1603;
}

fn f1604() {
    let v = 1604;
}

fn f1605() {
    let v = 1605;
}

fn f1606() {
    let v = 1606;
}

fn f1607() {
    let v = 1607;
}

fn f1608() {
    let v = 1608;
}

fn f1609() {
    let v = 1609;
}

fn f1610() {
    let v = 1610;
}

fn f1611() {
    let v = 1611;
}

fn f1612() {
    let v = 1612;
}

fn f1613() {
    let v = 1613;
}

fn f1614() {
    let v = 1614;
}

fn f1615() {
    let v = 1615;
}

fn f1616() {
    let v = 1616;
}

fn f1617() {
    let v = 1617;
}

fn f1618() {
    let v = 1618;
}

fn f1619() {
    let v = 1619;
}

fn f1620() {
    let v = 1620;
}

fn f1621() {
    let v = 1621;
}

fn f1622() {
    let v = 1622;
}

fn f1623() {
    let v = 1623;
}

fn f1624() {
    let v = 1624;
}

fn f1625() {
    let v = 1625;
}

fn f1626() {
    let v = 1626;
}

fn f1627() {
    let v = 1627;
}

fn f1628() {
    let v = 1628;
}

fn f1629() {
    let v = 1629;
}

fn f1630() {
    let v = 1630;
}

fn f1631() {
    let v = 1631;
}

fn f1632() {
    let v = 1632;
}

fn f1633() {
    let v = 1633;
}

fn f1634() {
    let v = 1634;
}

fn f1635() {
    let v = 1635;
}

fn f1636() {
    let v = 1636;
}

fn f1637() {
    let v = 1637;
}

fn f1638() {
    let v = 1638;
}

fn f1639() {
    let v = 1639;
}

fn f1640() {
    let v = 1640;
}

fn f1641() {
    let v = 1641;
}

fn f1642() {
    let v = 1642;
}

fn f1643() {
    let v = 1643;
}

fn f1644() {
    let v = 1644;
}

fn f1645() {
    let v = 1645;
}

fn f1646() {
    let v = 1646;
}

fn f1647() {
    let v = 1647;
}

fn f1648() {
    let v = 1648;
}

fn f1649() {
    let v = 1649;
}

fn f1650() {
    let v = 1650;
}

fn f1651() {
    let v = 1651;
}

fn f1652() {
    let v = 1652;
}

fn f1653() {
    let v = 1653;
}

fn f1654() {
    let v = 1654;
}

fn f1655() {
    let v = 1655;
}

fn f1656() {
    let v = 1656;
}

fn f1657() {
    let v = 1657;
}

fn f1658() {
    let v = 1658;
}

fn f1659() {
    let v = 1659;
}

fn f1660() {
    let v = 1660;
}

fn f1661() {
    let v = 1661;
}

fn f1662() {
    let v = 1662;
}

fn f1663() {
    let v = 1663;
}

fn f1664() {
    let v = 1664;
}

fn f1665() {
    let v = 1665;
}

fn f1666() {
    let v = 1666;
}

fn f1667() {
    let v = 1667;
}

fn f1668() {
    let v = 1668;
}

fn f1669() {
    let v = 1669;
}

fn f1670() {
    let v = 1670;
}

fn f1671() {
    let v = 1671;
}

fn f1672() {
    let v = 1672;
}

fn f1673() {
    let v = 1673;
}

fn f1674() {
    let v = 1674;
}

fn f1675() {
    let v = 1675;
}

fn f1676() {
    let v = 1676;
}

fn f1677() {
    let v = 1677;
}

fn f1678() {
    let v = 1678;
}

fn f1679() {
    let v = 1679;
}

fn f1680() {
    let v = 1680;
}

fn f1681() {
    let v = 1681;
}

fn f1682() {
    let v = 1682;
}

fn f1683() {
    let v = 1683;
}

fn f1684() {
    let v = 1684;
}

fn f1685() {
    let v = 1685;
}

fn f1686() {
    let v = 1686;
}

fn f1687() {
    let v = 1687;
}

fn f1688() {
    let v = 1688;
}

fn f1689() {
    let v = 1689;
}

fn f1690() {
    let v = 1690;
}

fn f1691() {
    let v = 1691;
}

fn f1692() {
    let v = 1692;
}

fn f1693() {
    let v = 1693;
}

fn f1694() {
    let v = 1694;
}

fn f1695() {
    let v = 1695;
}

fn f1696() {
    let v = 1696;
}

fn f1697() {
    let v = 1697;
}

fn f1698() {
    let v = 1698;
}

fn f1699() {
    let v = 1699;
}

fn f1700() {
    let v = 1700;
}

fn f1701() {
    let v = 1701;
}

fn f1702() {
    let v = 1702;
}

fn f1703() {
    let v = 1703;
}

fn f1704() {
    let v = 1704;
}

fn f1705() {
    let v = 1705;
}

fn f1706() {
    let v = 1706;
}

fn f1707() {
    let v = 1707;
}

fn f1708() {
    let v = 1708;
}

fn f1709() {
    let v = 1709;
}

fn f1710() {
    let v = 1710;
}

fn f1711() {
    let v = 1711;
}

fn f1712() {
    let v = 1712;
}

fn f1713() {
    let v = 1713;
}

fn f1714() {
    let v = 1714;
}

fn f1715() {
    let v = 1715;
}

fn f1716() {
    let v = 1716;
}

fn f1717() {
    let v = 1717;
}

fn f1718() {
    let v = 1718;
}

fn f1719() {
    let v = 1719;
}

fn f1720() {
    let v = 1720;
}

fn f1721() {
    let v = 1721;
}

fn f1722() {
    let v = 1722;
}

fn f1723() {
    let v = 1723;
}

fn f1724() {
    let v = 1724;
}

fn f1725() {
    let v = 1725;
}

fn f1726() {
    let v = 1726;
}

fn f1727() {
    let v = 1727;
}

fn f1728() {
    let v = 1728;
}

fn f1729() {
    let v = 1729;
}

fn f1730() {
    let v = 1730;
}

fn f1731() {
    let v = 1731;
}

fn f1732() {
    let v = 1732;
}

fn f1733() {
    let v = 1733;
}

fn f1734() {
    let v = 1734;
}

fn f1735() {
    let v = 1735;
}

fn f1736() {
    let v = 1736;
}

fn f1737() {
    let v = 1737;
}

fn f1738() {
    let v = 1738;
}

fn f1739() {
    let v = 1739;
}

fn f1740() {
    let v = 1740;
}

fn f1741() {
    let v = 1741;
}

fn f1742() {
    let v = 1742;
}

fn f1743() {
    let v = 1743;
}

fn f1744() {
    let v = 1744;
}

fn f1745() {
    let v = 1745;
}

fn f1746() {
    let v = 1746;
}

fn f1747() {
    let v = 1747;
}

fn f1748() {
    let v = 1748;
}

fn f1749() {
    let v = 1749;
}

fn f1750() {
    let v = 1750;
}

fn f1751() {
    let v = 1751;
}

fn f1752() {
    let v = 1752;
}

fn f1753() {
    let v = 1753;
}

fn f1754() {
    let v = 1754;
}

fn f1755() {
    let v = 1755;
}

fn f1756() {
    let v = 1756;
}

fn f1757() {
    let v = 1757;
}

fn f1758() {
    let v = 1758;
}

fn f1759() {
    let v = 1759;
}

fn f1760() {
    let v = 1760;
}

fn f1761() {
    let v = 1761;
}

fn f1762() {
    let v = 1762;
}

fn f1763() {
    let v = 1763;
}

fn f1764() {
    let v = 1764;
}

fn f1765() {
    let v = 1765;
}

fn f1766() {
    let v = 1766;
}

fn f1767() {
    let v = 1767;
}

fn f1768() {
    let v = 1768;
}

fn f1769() {
    let v = 1769;
}

fn f1770() {
    let v = 1770;
}

fn f1771() {
    let v = 1771;
}

fn f1772() {
    let v = 1772;
}

fn f1773() {
    let v = 1773;
}

fn f1774() {
    let v = 1774;
}

fn f1775() {
    let v = 1775;
}

fn f1776() {
    let v = 1776;
}

fn f1777() {
    let v = 1777;
}

fn f1778() {
    let v = 1778;
}

fn f1779() {
    let v = 1779;
}

fn f1780() {
    let v = 1780;
}

fn f1781() {
    let v = 1781;
}

fn f1782() {
    let v = 1782;
}

fn f1783() {
    let v = 1783;
}

fn f1784() {
    let v = 1784;
}

fn f1785() {
    let v = 1785;
}

fn f1786() {
    let v = 1786;
}

fn f1787() {
    let v = 1787;
}

fn f1788() {
    let v = 1788;
}

fn f1789() {
    let v = 1789;
}

fn f1790() {
    let v = 1790;
}

fn f1791() {
    let v = 1791;
}

fn f1792() {
    let v = 1792;
}

fn f1793() {
    let v = 1793;
}

fn f1794() {
    let v = 1794;
}

fn f1795() {
    let v = 1795;
}

fn f1796() {
    let v = 1796;
}

fn f1797() {
    let v = 1797;
}

fn f1798() {
    let v = 1798;
}

fn f1799() {
    let v = 1799;
}

fn f1800() {
    let v = 1800;
}

fn f1801() {
    let v = 1801;
}

fn f1802() {
    let v = 1802;
}

fn f1803() {
    let v = 1803;
}

fn f1804() {
    let v = 1804;
}

fn f1805() {
    let v = 1805;
}

fn f1806() {
    let v = 1806;
}

fn f1807() {
    let v = 1807;
}

fn f1808() {
    let v = 1808;
}

fn f1809() {
    let v = 1809;
}

fn f1810() {
    let v = 1810;
}

fn f1811() {
    let v = 1811;
}

fn f1812() {
    let v = 1812;
}

fn f1813() {
    let v = 1813;
}

fn f1814() {
    let v = 1814;
}

fn f1815() {
    let v = 1815;
}

fn f1816() {
    let v = 1816;
}

fn f1817() {
    let v = 1817;
}

fn f1818() {
    let v = 1818;
}

fn f1819() {
    let v = 1819;
}

fn f1820() {
    let v = 1820;
}

fn f1821() {
    let v = 1821;
}

fn f1822() {
    let v = 1822;
}

fn f1823() {
    let v = 1823;
}

fn f1824() {
    let v = 1824;
}

fn f1825() {
    let v = 1825;
}

fn f1826() {
    let v = 1826;
}

fn f1827() {
    let v = 1827;
}

fn f1828() {
    let v = 1828;
}

fn f1829() {
    let v = 1829;
}

fn f1830() {
    let v = 1830;
}

fn f1831() {
    let v = 1831;
}

fn f1832() {
    let v = 1832;
}

fn f1833() {
    let v = 1833;
}

fn f1834() {
    let v = 1834;
}

fn f1835() {
    let v = 1835;
}

fn f1836() {
    let v = 1836;
}

fn f1837() {
    let v = 1837;
}

fn f1838() {
    let v = 1838;
}

fn f1839() {
    let v = 1839;
}

fn f1840() {
    let v = 1840;
}

fn f1841() {
    let v = 1841;
}

fn f1842() {
    let v = 1842;
}

fn f1843() {
    let v = 1843;
}

fn f1844() {
    let v = 1844;
}

fn f1845() {
    let v = 1845;
}

fn f1846() {
    let v = 1846;
}

fn f1847() {
    let v = 1847;
}

fn f1848() {
    let v = 1848;
}

fn f1849() {
    let v = 1849;
}

fn f1850() {
    let v = 1850;
}

fn f1851() {
    let v = 1851;
}

fn f1852() {
    let v = 1852;
}

fn f1853() {
    let v = 1853;
}

fn f1854() {
    let v = 1854;
}

fn f1855() {
    let v = 1855;
}

fn f1856() {
    let v = 1856;
}

fn f1857() {
    let v = 1857;
}

fn f1858() {
    let v = 1858;
}

fn f1859() {
    let v = 1859;
}

fn f1860() {
    let v = 1860;
}

fn f1861() {
    let v = 1861;
}

fn f1862() {
    let v = 1862;
}

fn f1863() {
    let v = 1863;
}

fn f1864() {
    let v = 1864;
}

fn f1865() {
    let v = 1865;
}

fn f1866() {
    let v = 1866;
}

fn f1867() {
    let v = 1867;
}

fn f1868() {
    let v = 1868;
}

fn f1869() {
    let v = 1869;
}

fn f1870() {
    let v = 1870;
}

fn f1871() {
    let v = 1871;
}

fn f1872() {
    let v = 1872;
}

fn f1873() {
    let v = 1873;
}

fn f1874() {
    let v = 1874;
}

fn f1875() {
    let v = 1875;
}

fn f1876() {
    let v = 1876;
}

fn f1877() {
    let v = 1877;
}

fn f1878() {
    let v = 1878;
}

fn f1879() {
    let v = 1879;
}

fn f1880() {
    let v = 1880;
}

fn f1881() {
    let v = 1881;
}

fn f1882() {
    let v = 1882;
}

fn f1883() {
    let v = 1883;
}

fn f1884() {
    let v = 1884;
}

fn f1885() {
    let v = 1885;
}

fn f1886() {
    let v = 1886;
}

fn f1887() {
    let v = 1887;
}

fn f1888() {
    let v = 1888;
}

fn f1889() {
    let v = 1889;
}

fn f1890() {
    let v = 1890;
}

fn f1891() {
    let v = 1891;
}

fn f1892() {
    let v = 1892;
}

fn f1893() {
    let v = 1893;
}

fn f1894() {
    let v = 1894;
}

fn f1895() {
    let v = 1895;
}

fn f1896() {
    let v = 1896;
}

fn f1897() {
    let v = 1897;
}

fn f1898() {
    let v = 1898;
}

fn f1899() {
    let v = 1899;
}

fn f1900() {
    let v = 1900;
}

fn f1901() {
    let v = 1901;
}

fn f1902() {
    let v = 1902;
}

fn f1903() {
    let v = 1903;
}

fn f1904() {
    let v = 1904;
}

fn f1905() {
    let v = 1905;
}

fn f1906() {
    let v = 1906;
}

fn f1907() {
    let v = 1907;
}

fn f1908() {
    let v = 1908;
}

fn f1909() {
    let v = 1909;
}

fn f1910() {
    let v = 1910;
}

fn f1911() {
    let v = 1911;
}

fn f1912() {
    let v = 1912;
}

fn f1913() {
    let v = 1913;
}

fn f1914() {
    let v = 1914;
}

fn f1915() {
    let v = 1915;
}

fn f1916() {
    let v = 1916;
}

fn f1917() {
    let v = 1917;
}

fn f1918() {
    let v = 1918;
}

fn f1919() {
    let v = 1919;
}

fn f1920() {
    let v = 1920;
}

fn f1921() {
    let v = 1921;
}

fn f1922() {
    let v = 1922;
}

fn f1923() {
    let v = 1923;
}

fn f1924() {
    let v = 1924;
}

fn f1925() {
    let v = 1925;
}

fn f1926() {
    let v = 1926;
}

fn f1927() {
    let v = 1927;
}

fn f1928() {
    let v = 1928;
}

fn f1929() {
    let v = 1929;
}

fn f1930() {
    let v = 1930;
}

fn f1931() {
    let v = 1931;
}

fn f1932() {
    let v = 1932;
}

fn f1933() {
    let v = 1933;
}

fn f1934() {
    let v = 1934;
}

fn f1935() {
    let v = 1935;
}

fn f1936() {
    let v = 1936;
}

fn f1937() {
    let v = 1937;
}

fn f1938() {
    let v = 1938;
}

fn f1939() {
    let v = 1939;
}

fn f1940() {
    let v = 1940;
}

fn f1941() {
    let v = 1941;
}

fn f1942() {
    let v = 1942;
}

fn f1943() {
    let v = 1943;
}

fn f1944() {
    let v = 1944;
}

fn f1945() {
    let v = 1945;
}

fn f1946() {
    let v = 1946;
}

fn f1947() {
    let v = 1947;
}

fn f1948() {
    let v = 1948;
}

fn f1949() {
    let v = 1949;
}

fn f1950() {
    let v = 1950;
}

fn f1951() {
    let v = 1951;
}

fn f1952() {
    let v = 1952;
}

fn f1953() {
    let v = 1953;
}

fn f1954() {
    let v = 1954;
}

fn f1955() {
    let v = 1955;
}

fn f1956() {
    let v = 1956;
}

fn f1957() {
    let v = 1957;
}

fn f1958() {
    let v = 1958;
}

fn f1959() {
    let v = 1959;
}

fn f1960() {
    let v = 1960;
}

fn f1961() {
    let v = 1961;
}

fn f1962() {
    let v = 1962;
}

fn f1963() {
    let v = 1963;
}

fn f1964() {
    let v = 1964;
}

fn f1965() {
    let v = 1965;
}

fn f1966() {
    let v = 1966;
}

fn f1967() {
    let v = 1967;
}

fn f1968() {
    let v = 1968;
}

fn f1969() {
    let v = 1969;
}

fn f1970() {
    let v = 1970;
}

fn f1971() {
    let v = 1971;
}

fn f1972() {
    let v = 1972;
}

fn f1973() {
    let v = 1973;
}

fn f1974() {
    let v = 1974;
}

fn f1975() {
    let v = 1975;
}

fn f1976() {
    let v = 1976;
}

fn f1977() {
    let v = 1977;
}

fn f1978() {
    let v = 1978;
}

fn f1979() {
    let v = 1979;
}

fn f1980() {
    let v = 1980;
}

fn f1981() {
    let v = 1981;
}

fn f1982() {
    let v = 1982;
}

fn f1983() {
    let v = 1983;
}

fn f1984() {
    let v = 1984;
}

fn f1985() {
    let v = 1985;
}

fn f1986() {
    let v = 1986;
}

fn f1987() {
    let v = 1987;
}

fn f1988() {
    let v = 1988;
}

fn f1989() {
    let v = 1989;
}

fn f1990() {
    let v = 1990;
}

fn f1991() {
    let v = 1991;
}

fn f1992() {
    let v = 1992;
}

fn f1993() {
    let v = 1993;
}

fn f1994() {
    let v = 1994;
}

fn f1995() {
    let v = 1995;
}

fn f1996() {
    let v = 1996;
}

fn f1997() {
    let v = 1997;
}

fn f1998() {
    let v = 1998;
}

fn f1999() {
    let v = 1999;
}

