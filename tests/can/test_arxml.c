/* CAN matrices in AUTOSAR 4 ARXML (src/can/arxml.c). Truth: the small
 * matrix below, written here from the System Template's element names
 * (CAN-FRAME-TRIGGERING, CAN-FRAME, PDU-TO-FRAME-MAPPING, I-SIGNAL-I-PDU
 * with a CYCLIC-TIMING, I-SIGNAL-TO-I-PDU-MAPPING, I-SIGNAL with its
 * NETWORK-REPRESENTATION-PROPS, SW-BASE-TYPE, COMPU-METHOD, UNIT, an
 * ECU-INSTANCE's FRAME-PORT), and the same frame bytes decoded by hand.
 * canmatrix's ARXML against it: tests/python/test_dbc_canmatrix.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/dbc.h"

#define PKG(name, body) "<AR-PACKAGE><SHORT-NAME>" name "</SHORT-NAME><ELEMENTS>" body "</ELEMENTS></AR-PACKAGE>"

static const char matrix[] =
    "<?xml version=\"1.0\"?>\n"
    "<AUTOSAR xmlns=\"http://autosar.org/schema/r4.0\"><AR-PACKAGES>\n"
    PKG("Cluster",
        "<CAN-CLUSTER><SHORT-NAME>CAN1</SHORT-NAME><CAN-CLUSTER-VARIANTS><CAN-CLUSTER-CONDITIONAL>"
        "<PHYSICAL-CHANNELS><CAN-PHYSICAL-CHANNEL><SHORT-NAME>CH</SHORT-NAME><FRAME-TRIGGERINGS>\n"
        "<CAN-FRAME-TRIGGERING><SHORT-NAME>FT_Status</SHORT-NAME>"
        "<FRAME-PORT-REFS><FRAME-PORT-REF DEST=\"FRAME-PORT\">/Ecu/Gateway/Conn/StatusIn</FRAME-PORT-REF>"
        "<FRAME-PORT-REF DEST=\"FRAME-PORT\">/Ecu/Motor/Conn/StatusOut</FRAME-PORT-REF></FRAME-PORT-REFS>"
        "<FRAME-REF DEST=\"CAN-FRAME\">/Frames/Status</FRAME-REF>"
        "<CAN-ADDRESSING-MODE>EXTENDED</CAN-ADDRESSING-MODE>"
        "<CAN-FRAME-TX-BEHAVIOR>CAN-FD</CAN-FRAME-TX-BEHAVIOR><IDENTIFIER>0x18FF1234</IDENTIFIER>"
        "</CAN-FRAME-TRIGGERING>\n"
        "<CAN-FRAME-TRIGGERING><SHORT-NAME>FT_Mux</SHORT-NAME>"
        "<FRAME-REF DEST=\"CAN-FRAME\">/Frames/MuxFrame</FRAME-REF>"
        "<CAN-ADDRESSING-MODE>STANDARD</CAN-ADDRESSING-MODE><IDENTIFIER>256</IDENTIFIER>"
        "</CAN-FRAME-TRIGGERING>\n"
        "<CAN-FRAME-TRIGGERING><SHORT-NAME>FT_Sec</SHORT-NAME>"
        "<FRAME-REF DEST=\"CAN-FRAME\">/Frames/SecFrame</FRAME-REF>"
        "<CAN-ADDRESSING-MODE>STANDARD</CAN-ADDRESSING-MODE><IDENTIFIER>0x200</IDENTIFIER>"
        "</CAN-FRAME-TRIGGERING>\n"
        "<CAN-FRAME-TRIGGERING><SHORT-NAME>FT_Cont</SHORT-NAME>"
        "<FRAME-REF DEST=\"CAN-FRAME\">/Frames/ContFrame</FRAME-REF>"
        "<CAN-ADDRESSING-MODE>STANDARD</CAN-ADDRESSING-MODE>"
        "<CAN-FRAME-TX-BEHAVIOR>CAN-FD</CAN-FRAME-TX-BEHAVIOR><IDENTIFIER>0x300</IDENTIFIER>"
        "</CAN-FRAME-TRIGGERING>\n"
        "</FRAME-TRIGGERINGS><PDU-TRIGGERINGS><PDU-TRIGGERING><SHORT-NAME>PT_Auth</SHORT-NAME>"
        "<I-PDU-REF DEST=\"I-SIGNAL-I-PDU\">/Pdus/AuthPdu</I-PDU-REF></PDU-TRIGGERING>"
        "<PDU-TRIGGERING><SHORT-NAME>PT_C1</SHORT-NAME>"
        "<I-PDU-REF DEST=\"I-SIGNAL-I-PDU\">/Pdus/C1</I-PDU-REF></PDU-TRIGGERING>"
        "<PDU-TRIGGERING><SHORT-NAME>PT_C2</SHORT-NAME>"
        "<I-PDU-REF DEST=\"I-SIGNAL-I-PDU\">/Pdus/C2</I-PDU-REF></PDU-TRIGGERING>"
        "</PDU-TRIGGERINGS></CAN-PHYSICAL-CHANNEL></PHYSICAL-CHANNELS>"
        "</CAN-CLUSTER-CONDITIONAL></CAN-CLUSTER-VARIANTS></CAN-CLUSTER>")
    PKG("Ecu",
        "<ECU-INSTANCE><SHORT-NAME>Motor</SHORT-NAME><CONNECTORS><CAN-COMMUNICATION-CONNECTOR>"
        "<SHORT-NAME>Conn</SHORT-NAME><ECU-COMM-PORT-INSTANCES><FRAME-PORT><SHORT-NAME>StatusOut"
        "</SHORT-NAME><COMMUNICATION-DIRECTION>OUT</COMMUNICATION-DIRECTION></FRAME-PORT>"
        "</ECU-COMM-PORT-INSTANCES></CAN-COMMUNICATION-CONNECTOR></CONNECTORS></ECU-INSTANCE>"
        "<ECU-INSTANCE><SHORT-NAME>Gateway</SHORT-NAME><CONNECTORS><CAN-COMMUNICATION-CONNECTOR>"
        "<SHORT-NAME>Conn</SHORT-NAME><ECU-COMM-PORT-INSTANCES><FRAME-PORT><SHORT-NAME>StatusIn"
        "</SHORT-NAME><COMMUNICATION-DIRECTION>IN</COMMUNICATION-DIRECTION></FRAME-PORT>"
        "</ECU-COMM-PORT-INSTANCES></CAN-COMMUNICATION-CONNECTOR></CONNECTORS></ECU-INSTANCE>")
    PKG("Frames",
        "<CAN-FRAME><SHORT-NAME>Status</SHORT-NAME><FRAME-LENGTH>8</FRAME-LENGTH>"
        "<PDU-TO-FRAME-MAPPINGS><PDU-TO-FRAME-MAPPING><SHORT-NAME>M</SHORT-NAME>"
        "<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>"
        "<PDU-REF DEST=\"I-SIGNAL-I-PDU\">/Pdus/StatusPdu</PDU-REF><START-POSITION>8</START-POSITION>"
        "</PDU-TO-FRAME-MAPPING></PDU-TO-FRAME-MAPPINGS></CAN-FRAME>"
        "<CAN-FRAME><SHORT-NAME>MuxFrame</SHORT-NAME><FRAME-LENGTH>8</FRAME-LENGTH>"
        "<PDU-TO-FRAME-MAPPINGS><PDU-TO-FRAME-MAPPING><SHORT-NAME>M</SHORT-NAME>"
        "<PDU-REF DEST=\"MULTIPLEXED-I-PDU\">/Pdus/Muxed</PDU-REF><START-POSITION>0</START-POSITION>"
        "</PDU-TO-FRAME-MAPPING></PDU-TO-FRAME-MAPPINGS></CAN-FRAME>"
        "<CAN-FRAME><SHORT-NAME>SecFrame</SHORT-NAME><FRAME-LENGTH>8</FRAME-LENGTH>"
        "<PDU-TO-FRAME-MAPPINGS><PDU-TO-FRAME-MAPPING><SHORT-NAME>M</SHORT-NAME>"
        "<PDU-REF DEST=\"SECURED-I-PDU\">/Pdus/SecPdu</PDU-REF><START-POSITION>0</START-POSITION>"
        "</PDU-TO-FRAME-MAPPING></PDU-TO-FRAME-MAPPINGS></CAN-FRAME>"
        "<CAN-FRAME><SHORT-NAME>ContFrame</SHORT-NAME><FRAME-LENGTH>16</FRAME-LENGTH>"
        "<PDU-TO-FRAME-MAPPINGS><PDU-TO-FRAME-MAPPING><SHORT-NAME>M</SHORT-NAME>"
        "<PDU-REF DEST=\"CONTAINER-I-PDU\">/Pdus/Cont</PDU-REF><START-POSITION>0</START-POSITION>"
        "</PDU-TO-FRAME-MAPPING></PDU-TO-FRAME-MAPPINGS></CAN-FRAME>")
    PKG("Pdus",
        "<I-SIGNAL-I-PDU><SHORT-NAME>StatusPdu</SHORT-NAME><LENGTH>7</LENGTH>"
        "<I-PDU-TIMING-SPECIFICATIONS><I-PDU-TIMING><TRANSMISSION-MODE-DECLARATION>"
        "<TRANSMISSION-MODE-TRUE-TIMING><CYCLIC-TIMING><TIME-PERIOD><VALUE>0.02</VALUE>"
        "</TIME-PERIOD></CYCLIC-TIMING></TRANSMISSION-MODE-TRUE-TIMING>"
        "</TRANSMISSION-MODE-DECLARATION></I-PDU-TIMING></I-PDU-TIMING-SPECIFICATIONS>"
        "<I-SIGNAL-TO-PDU-MAPPINGS>"
        "<I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>m1</SHORT-NAME>"
        "<I-SIGNAL-REF DEST=\"I-SIGNAL\">/Signals/Speed</I-SIGNAL-REF>"
        "<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>"
        "<START-POSITION>0</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING>"
        "<I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>m2</SHORT-NAME>"
        "<I-SIGNAL-REF DEST=\"I-SIGNAL\">/Signals/Temp</I-SIGNAL-REF>"
        "<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-FIRST</PACKING-BYTE-ORDER>"
        "<START-POSITION>23</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING>"
        "<I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>m3</SHORT-NAME>"
        "<I-SIGNAL-REF DEST=\"I-SIGNAL\">/Signals/Mode</I-SIGNAL-REF>"
        "<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>"
        "<START-POSITION>40</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING>"
        "</I-SIGNAL-TO-PDU-MAPPINGS></I-SIGNAL-I-PDU>"
        "<MULTIPLEXED-I-PDU><SHORT-NAME>Muxed</SHORT-NAME><LENGTH>8</LENGTH>"
        "<DYNAMIC-PARTS><DYNAMIC-PART><SEGMENT-POSITIONS><SEGMENT-POSITION>"
        "<SEGMENT-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</SEGMENT-BYTE-ORDER>"
        "<SEGMENT-LENGTH>24</SEGMENT-LENGTH><SEGMENT-POSITION>8</SEGMENT-POSITION>"
        "</SEGMENT-POSITION></SEGMENT-POSITIONS><DYNAMIC-PART-ALTERNATIVES>"
        "<DYNAMIC-PART-ALTERNATIVE><I-PDU-REF DEST=\"I-SIGNAL-I-PDU\">/Pdus/AltA</I-PDU-REF>"
        "<INITIAL-DYNAMIC-PART>false</INITIAL-DYNAMIC-PART><SELECTOR-FIELD-CODE>1"
        "</SELECTOR-FIELD-CODE></DYNAMIC-PART-ALTERNATIVE>"
        "<DYNAMIC-PART-ALTERNATIVE><I-PDU-REF DEST=\"I-SIGNAL-I-PDU\">/Pdus/AltB</I-PDU-REF>"
        "<INITIAL-DYNAMIC-PART>true</INITIAL-DYNAMIC-PART><SELECTOR-FIELD-CODE>2"
        "</SELECTOR-FIELD-CODE></DYNAMIC-PART-ALTERNATIVE>"
        "</DYNAMIC-PART-ALTERNATIVES></DYNAMIC-PART></DYNAMIC-PARTS>"
        "<SELECTOR-FIELD-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</SELECTOR-FIELD-BYTE-ORDER>"
        "<SELECTOR-FIELD-LENGTH>4</SELECTOR-FIELD-LENGTH>"
        "<SELECTOR-FIELD-START-POSITION>0</SELECTOR-FIELD-START-POSITION>"
        "<STATIC-PARTS><STATIC-PART><I-PDU-REF DEST=\"I-SIGNAL-I-PDU\">/Pdus/MuxStatic</I-PDU-REF>"
        "</STATIC-PART></STATIC-PARTS></MULTIPLEXED-I-PDU>"
        "<I-SIGNAL-I-PDU><SHORT-NAME>MuxStatic</SHORT-NAME><LENGTH>8</LENGTH>"
        "<I-PDU-TIMING-SPECIFICATIONS><I-PDU-TIMING><TRANSMISSION-MODE-DECLARATION>"
        "<TRANSMISSION-MODE-TRUE-TIMING><CYCLIC-TIMING><TIME-PERIOD><VALUE>0.1</VALUE>"
        "</TIME-PERIOD></CYCLIC-TIMING></TRANSMISSION-MODE-TRUE-TIMING>"
        "</TRANSMISSION-MODE-DECLARATION></I-PDU-TIMING></I-PDU-TIMING-SPECIFICATIONS>"
        "<I-SIGNAL-TO-PDU-MAPPINGS><I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>c</SHORT-NAME>"
        "<I-SIGNAL-REF DEST=\"I-SIGNAL\">/Signals/Counter</I-SIGNAL-REF>"
        "<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>"
        "<START-POSITION>4</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING>"
        "</I-SIGNAL-TO-PDU-MAPPINGS></I-SIGNAL-I-PDU>"
        "<I-SIGNAL-I-PDU><SHORT-NAME>AltA</SHORT-NAME><LENGTH>8</LENGTH><I-SIGNAL-TO-PDU-MAPPINGS>"
        "<I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>p</SHORT-NAME>"
        "<I-SIGNAL-REF DEST=\"I-SIGNAL\">/Signals/Pressure</I-SIGNAL-REF>"
        "<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>"
        "<START-POSITION>8</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING>"
        "</I-SIGNAL-TO-PDU-MAPPINGS></I-SIGNAL-I-PDU>"
        "<I-SIGNAL-I-PDU><SHORT-NAME>AltB</SHORT-NAME><LENGTH>8</LENGTH><I-SIGNAL-TO-PDU-MAPPINGS>"
        "<I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>l</SHORT-NAME>"
        "<I-SIGNAL-REF DEST=\"I-SIGNAL\">/Signals/Level</I-SIGNAL-REF>"
        "<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>"
        "<START-POSITION>8</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING>"
        "<I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>m</SHORT-NAME>"
        "<I-SIGNAL-REF DEST=\"I-SIGNAL\">/Signals/Mode</I-SIGNAL-REF>"
        "<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>"
        "<START-POSITION>16</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING>"
        "<I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>c2</SHORT-NAME>"
        "<I-SIGNAL-REF DEST=\"I-SIGNAL\">/Signals/Counter</I-SIGNAL-REF>"
        "<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>"
        "<START-POSITION>24</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING>"
        "</I-SIGNAL-TO-PDU-MAPPINGS></I-SIGNAL-I-PDU>"
        "<SECURED-I-PDU><SHORT-NAME>SecPdu</SHORT-NAME><LENGTH>8</LENGTH>"
        "<PAYLOAD-REF DEST=\"PDU-TRIGGERING\">/Cluster/CAN1/CH/PT_Auth</PAYLOAD-REF>"
        "<SECURE-COMMUNICATION-PROPS><AUTH-INFO-TX-LENGTH>24</AUTH-INFO-TX-LENGTH>"
        "<FRESHNESS-VALUE-TX-LENGTH>8</FRESHNESS-VALUE-TX-LENGTH></SECURE-COMMUNICATION-PROPS>"
        "</SECURED-I-PDU>"
        "<CONTAINER-I-PDU><SHORT-NAME>Cont</SHORT-NAME><LENGTH>16</LENGTH>"
        "<CONTAINED-PDU-TRIGGERING-REFS>"
        "<CONTAINED-PDU-TRIGGERING-REF DEST=\"PDU-TRIGGERING\">/Cluster/CAN1/CH/PT_C1"
        "</CONTAINED-PDU-TRIGGERING-REF>"
        "<CONTAINED-PDU-TRIGGERING-REF DEST=\"PDU-TRIGGERING\">/Cluster/CAN1/CH/PT_C2"
        "</CONTAINED-PDU-TRIGGERING-REF></CONTAINED-PDU-TRIGGERING-REFS>"
        "<CONTAINER-TRIGGER>FIRST-CONTAINED-TRIGGER</CONTAINER-TRIGGER>"
        "<HEADER-TYPE>SHORT-HEADER</HEADER-TYPE><THRESHOLD-SIZE>12</THRESHOLD-SIZE>"
        "<UNUSED-BIT-PATTERN>255</UNUSED-BIT-PATTERN></CONTAINER-I-PDU>"
        "<I-SIGNAL-I-PDU><SHORT-NAME>C1</SHORT-NAME><CONTAINED-I-PDU-PROPS>"
        "<COLLECTION-SEMANTICS>QUEUED</COLLECTION-SEMANTICS>"
        "<HEADER-ID-SHORT-HEADER>18</HEADER-ID-SHORT-HEADER><TIMEOUT>0.004</TIMEOUT>"
        "<TRIGGER>ALWAYS</TRIGGER></CONTAINED-I-PDU-PROPS>"
        "<LENGTH>2</LENGTH><I-SIGNAL-TO-PDU-MAPPINGS>"
        "<I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>r</SHORT-NAME>"
        "<I-SIGNAL-REF DEST=\"I-SIGNAL\">/Signals/Pressure</I-SIGNAL-REF>"
        "<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>"
        "<START-POSITION>0</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING>"
        "</I-SIGNAL-TO-PDU-MAPPINGS></I-SIGNAL-I-PDU>"
        "<I-SIGNAL-I-PDU><SHORT-NAME>C2</SHORT-NAME><CONTAINED-I-PDU-PROPS>"
        "<HEADER-ID-SHORT-HEADER>0x34</HEADER-ID-SHORT-HEADER></CONTAINED-I-PDU-PROPS>"
        "<LENGTH>1</LENGTH><I-SIGNAL-TO-PDU-MAPPINGS>"
        "<I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>g</SHORT-NAME>"
        "<I-SIGNAL-REF DEST=\"I-SIGNAL\">/Signals/Counter</I-SIGNAL-REF>"
        "<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>"
        "<START-POSITION>0</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING>"
        "</I-SIGNAL-TO-PDU-MAPPINGS></I-SIGNAL-I-PDU>"
        "<I-SIGNAL-I-PDU><SHORT-NAME>AuthPdu</SHORT-NAME><LENGTH>4</LENGTH><I-SIGNAL-TO-PDU-MAPPINGS>"
        "<I-SIGNAL-TO-I-PDU-MAPPING><SHORT-NAME>t</SHORT-NAME>"
        "<I-SIGNAL-REF DEST=\"I-SIGNAL\">/Signals/Torque</I-SIGNAL-REF>"
        "<PACKING-BYTE-ORDER>MOST-SIGNIFICANT-BYTE-LAST</PACKING-BYTE-ORDER>"
        "<START-POSITION>0</START-POSITION></I-SIGNAL-TO-I-PDU-MAPPING>"
        "</I-SIGNAL-TO-PDU-MAPPINGS></I-SIGNAL-I-PDU>")
    PKG("Signals",
        "<I-SIGNAL><SHORT-NAME>Speed</SHORT-NAME><LENGTH>16</LENGTH><NETWORK-REPRESENTATION-PROPS>"
        "<SW-DATA-DEF-PROPS-VARIANTS><SW-DATA-DEF-PROPS-CONDITIONAL>"
        "<BASE-TYPE-REF DEST=\"SW-BASE-TYPE\">/Types/u16</BASE-TYPE-REF>"
        "<COMPU-METHOD-REF DEST=\"COMPU-METHOD\">/Types/SpeedScale</COMPU-METHOD-REF>"
        "<UNIT-REF DEST=\"UNIT\">/Types/kmh</UNIT-REF>"
        "</SW-DATA-DEF-PROPS-CONDITIONAL></SW-DATA-DEF-PROPS-VARIANTS></NETWORK-REPRESENTATION-PROPS>"
        "</I-SIGNAL>"
        "<I-SIGNAL><SHORT-NAME>Temp</SHORT-NAME><INIT-VALUE><NUMERICAL-VALUE-SPECIFICATION>"
        "<VALUE>4048</VALUE></NUMERICAL-VALUE-SPECIFICATION></INIT-VALUE>"
        "<LENGTH>12</LENGTH><NETWORK-REPRESENTATION-PROPS>"
        "<SW-DATA-DEF-PROPS-VARIANTS><SW-DATA-DEF-PROPS-CONDITIONAL>"
        "<BASE-TYPE-REF DEST=\"SW-BASE-TYPE\">/Types/s16</BASE-TYPE-REF>"
        "<COMPU-METHOD-REF DEST=\"COMPU-METHOD\">/Types/TempScale</COMPU-METHOD-REF>"
        "</SW-DATA-DEF-PROPS-CONDITIONAL></SW-DATA-DEF-PROPS-VARIANTS></NETWORK-REPRESENTATION-PROPS>"
        "</I-SIGNAL>"
        "<I-SIGNAL><SHORT-NAME>Counter</SHORT-NAME><LENGTH>4</LENGTH></I-SIGNAL>"
        "<I-SIGNAL><SHORT-NAME>Pressure</SHORT-NAME><LENGTH>16</LENGTH></I-SIGNAL>"
        "<I-SIGNAL><SHORT-NAME>Level</SHORT-NAME><LENGTH>8</LENGTH>"
        "<SYSTEM-SIGNAL-REF DEST=\"SYSTEM-SIGNAL\">/Signals/LevelSys</SYSTEM-SIGNAL-REF></I-SIGNAL>"
        "<SYSTEM-SIGNAL><SHORT-NAME>LevelSys</SHORT-NAME><PHYSICAL-PROPS>"
        "<SW-DATA-DEF-PROPS-VARIANTS><SW-DATA-DEF-PROPS-CONDITIONAL>"
        "<COMPU-METHOD-REF DEST=\"COMPU-METHOD\">/Types/LevelScale</COMPU-METHOD-REF>"
        "<UNIT-REF DEST=\"UNIT\">/Types/pct</UNIT-REF>"
        "</SW-DATA-DEF-PROPS-CONDITIONAL></SW-DATA-DEF-PROPS-VARIANTS></PHYSICAL-PROPS>"
        "</SYSTEM-SIGNAL>"
        "<I-SIGNAL><SHORT-NAME>Torque</SHORT-NAME><LENGTH>16</LENGTH><NETWORK-REPRESENTATION-PROPS>"
        "<SW-DATA-DEF-PROPS-VARIANTS><SW-DATA-DEF-PROPS-CONDITIONAL>"
        "<BASE-TYPE-REF DEST=\"SW-BASE-TYPE\">/Types/s16</BASE-TYPE-REF>"
        "</SW-DATA-DEF-PROPS-CONDITIONAL></SW-DATA-DEF-PROPS-VARIANTS></NETWORK-REPRESENTATION-PROPS>"
        "</I-SIGNAL>"
        "<I-SIGNAL><SHORT-NAME>Mode</SHORT-NAME><LENGTH>2</LENGTH><NETWORK-REPRESENTATION-PROPS>"
        "<SW-DATA-DEF-PROPS-VARIANTS><SW-DATA-DEF-PROPS-CONDITIONAL>"
        "<COMPU-METHOD-REF DEST=\"COMPU-METHOD\">/Types/ModeTable</COMPU-METHOD-REF>"
        "</SW-DATA-DEF-PROPS-CONDITIONAL></SW-DATA-DEF-PROPS-VARIANTS></NETWORK-REPRESENTATION-PROPS>"
        "</I-SIGNAL>")
    PKG("Types",
        "<SW-BASE-TYPE><SHORT-NAME>u16</SHORT-NAME><BASE-TYPE-ENCODING>NONE</BASE-TYPE-ENCODING></SW-BASE-TYPE>"
        "<SW-BASE-TYPE><SHORT-NAME>s16</SHORT-NAME><BASE-TYPE-ENCODING>2C</BASE-TYPE-ENCODING></SW-BASE-TYPE>"
        "<UNIT><SHORT-NAME>kmh</SHORT-NAME><DISPLAY-NAME>km/h</DISPLAY-NAME></UNIT>"
        "<UNIT><SHORT-NAME>pct</SHORT-NAME><DISPLAY-NAME>%</DISPLAY-NAME></UNIT>"
        "<COMPU-METHOD><SHORT-NAME>LevelScale</SHORT-NAME><CATEGORY>LINEAR</CATEGORY>"
        "<COMPU-INTERNAL-TO-PHYS><COMPU-SCALES><COMPU-SCALE><COMPU-RATIONAL-COEFFS>"
        "<COMPU-NUMERATOR><V>-20</V><V>1</V></COMPU-NUMERATOR><COMPU-DENOMINATOR><V>2</V>"
        "</COMPU-DENOMINATOR></COMPU-RATIONAL-COEFFS></COMPU-SCALE></COMPU-SCALES>"
        "</COMPU-INTERNAL-TO-PHYS></COMPU-METHOD>"
        "<COMPU-METHOD><SHORT-NAME>SpeedScale</SHORT-NAME>"
        "<CATEGORY>SCALE_LINEAR_AND_TEXTTABLE</CATEGORY>"
        "<COMPU-INTERNAL-TO-PHYS><COMPU-SCALES><COMPU-SCALE><LOWER-LIMIT>0</LOWER-LIMIT>"
        "<UPPER-LIMIT>25000</UPPER-LIMIT><COMPU-RATIONAL-COEFFS><COMPU-NUMERATOR><V>0</V><V>1</V>"
        "</COMPU-NUMERATOR><COMPU-DENOMINATOR><V>100</V></COMPU-DENOMINATOR></COMPU-RATIONAL-COEFFS>"
        "</COMPU-SCALE>"
        "<COMPU-SCALE><LOWER-LIMIT>25001</LOWER-LIMIT><UPPER-LIMIT>65534</UPPER-LIMIT>"
        "<COMPU-RATIONAL-COEFFS><COMPU-NUMERATOR><V>250</V><V>0</V></COMPU-NUMERATOR>"
        "</COMPU-RATIONAL-COEFFS></COMPU-SCALE>"
        "<COMPU-SCALE><LOWER-LIMIT>65535</LOWER-LIMIT><UPPER-LIMIT>65535</UPPER-LIMIT>"
        "<COMPU-CONST><VT>Invalid</VT></COMPU-CONST></COMPU-SCALE>"
        "</COMPU-SCALES></COMPU-INTERNAL-TO-PHYS></COMPU-METHOD>"
        "<COMPU-METHOD><SHORT-NAME>TempScale</SHORT-NAME><CATEGORY>LINEAR</CATEGORY>"
        "<COMPU-INTERNAL-TO-PHYS><COMPU-SCALES><COMPU-SCALE><COMPU-RATIONAL-COEFFS>"
        "<COMPU-NUMERATOR><V>-40</V><V>0.5</V></COMPU-NUMERATOR></COMPU-RATIONAL-COEFFS>"
        "</COMPU-SCALE></COMPU-SCALES></COMPU-INTERNAL-TO-PHYS></COMPU-METHOD>"
        "<COMPU-METHOD><SHORT-NAME>ModeTable</SHORT-NAME><CATEGORY>TEXTTABLE</CATEGORY>"
        "<COMPU-INTERNAL-TO-PHYS><COMPU-SCALES>"
        "<COMPU-SCALE><LOWER-LIMIT>0</LOWER-LIMIT><UPPER-LIMIT>0</UPPER-LIMIT><COMPU-CONST><VT>Off</VT></COMPU-CONST></COMPU-SCALE>"
        "<COMPU-SCALE><LOWER-LIMIT>2</LOWER-LIMIT><UPPER-LIMIT>2</UPPER-LIMIT><COMPU-CONST><VT>Boost</VT></COMPU-CONST></COMPU-SCALE>"
        "</COMPU-SCALES></COMPU-INTERNAL-TO-PHYS></COMPU-METHOD>")
    "</AR-PACKAGES></AUTOSAR>\n";

static rtcosim_dbc *parse(const char *text, rtcosim_error *err)
{
    rtcosim_dbc *d = NULL;
    rtcosim_status st = rtcosim_dbc_parse_arxml(text, strlen(text), "m.arxml", &d, err);
    return st == RTCOSIM_OK ? d : NULL;
}

/* Status (0x18FF1234, extended, 8 bytes, sent by Motor every 20 ms): its
 * PDU at bit 8, so Speed (16 bits Intel at 0 of the PDU) starts at frame bit
 * 8, Temp (12 bits Motorola, MSB at 23) at 31, Mode (2 bits) at 48. Bytes
 * 00 10 27 FD 00 00 02 00: Speed raw 0x2710 = 10000 x 1/100 = 100 km/h;
 * Temp bits 31..24 (0xFD) then 39..36 (0x0): raw 0xFD0 = 4048, as 12-bit
 * two's complement -48, x 0.5 - 40 = -64; Mode raw 2: "Boost". */
static void a_matrix_reads_like_the_dbc_it_stands_for(void **state)
{
    (void)state;
    rtcosim_error err;
    rtcosim_dbc *d = parse(matrix, &err);
    if (!d)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_dbc_message_count(d), 6); /* a container and its 2 PDUs among them */
    const rtcosim_dbc_message *m = rtcosim_dbc_find_id(d, 0x18FF1234, true);
    assert_non_null(m);
    assert_string_equal(m->name, "Status");
    assert_string_equal(m->transmitter, "Motor");
    assert_int_equal(m->dlc, 8);
    assert_int_equal(m->cycle_time, 20000000);
    assert_true(m->fd && !rtcosim_dbc_find_id(d, 256, false)->fd); /* CAN-FRAME-TX-BEHAVIOR */
    assert_int_equal(m->signal_count, 3);
    const rtcosim_dbc_signal *speed = rtcosim_dbc_find_signal(m, "Speed"),
                             *temp = rtcosim_dbc_find_signal(m, "Temp"),
                             *mode = rtcosim_dbc_find_signal(m, "Mode");
    assert_int_equal(speed->start_bit, 8);
    assert_true(speed->little_endian && !speed->is_signed);
    assert_true(speed->factor == 0.01 && speed->offset == 0);
    assert_true(speed->minimum == 0 && speed->maximum == 250);
    assert_string_equal(speed->unit, "km/h");
    /* SCALE_LINEAR_AND_TEXTTABLE: the first rational scale, and the text */
    assert_int_equal(speed->value_count, 1);
    assert_string_equal(rtcosim_dbc_value_text_of(speed, 65535), "Invalid");
    assert_int_equal(temp->start_bit, 31);
    assert_true(!temp->little_endian && temp->is_signed);
    assert_true(temp->factor == 0.5 && temp->offset == -40);
    assert_true(temp->has_start && temp->start_raw == 4048 && !speed->has_start);
    assert_int_equal(mode->value_count, 2);
    assert_string_equal(rtcosim_dbc_value_text_of(mode, 2), "Boost");
    const uint8_t data[8] = {0x00, 0x10, 0x27, 0xFD, 0x00, 0x00, 0x02, 0x00};
    assert_true(rtcosim_dbc_decode(speed, data, 8) == 100.0);
    assert_true(rtcosim_dbc_decode(temp, data, 8) == -64.0);
    assert_true(rtcosim_dbc_decode(mode, data, 8) == 2.0);
    rtcosim_dbc_free(d);
}

/* MuxFrame (256): the MULTIPLEXED-I-PDU Muxed at bit 0, its 4-bit selector
 * at 0 (Intel), the static part's Counter at 4, alternative 1 (AltA) the
 * 16-bit Pressure at 8, alternative 2 (AltB, the initial one) Level at 8
 * and Mode at 16; AltB maps Counter again (at 24): one signal of a name, the
 * second left out. Bytes 21 34 12: selector 1, Counter 2, Pressure 0x1234 =
 * 4660, Level and Mode absent; bytes 32 7F 02: selector 2, Counter 3,
 * Level 127 x 0.5 - 10 = 53.5 (its scaling on its SYSTEM-SIGNAL), Mode 2,
 * Pressure absent. The static part's 100 ms cycle is
 * the frame's. SecFrame (0x200): a SECURED-I-PDU whose payload (through
 * the PDU-TRIGGERING PT_Auth) AuthPdu has the signed 16-bit Torque at 0:
 * bytes 38 FF = -200, the bytes after it (freshness, MAC) no signal. */
static void multiplexed_and_secured_pdus_read_as_multiplexing_and_payload(void **state)
{
    (void)state;
    rtcosim_error err;
    rtcosim_dbc *d = parse(matrix, &err);
    if (!d)
        fail_msg("%s", err.message);
    const rtcosim_dbc_message *m = rtcosim_dbc_find_id(d, 256, false);
    assert_non_null(m);
    assert_int_equal(m->signal_count, 5);
    assert_int_equal(m->cycle_time, 100000000);
    const rtcosim_dbc_signal *sel = rtcosim_dbc_find_signal(m, "Muxed_Selector"),
                             *counter = rtcosim_dbc_find_signal(m, "Counter"),
                             *pressure = rtcosim_dbc_find_signal(m, "Pressure"),
                             *level = rtcosim_dbc_find_signal(m, "Level"),
                             *mode = rtcosim_dbc_find_signal(m, "Mode");
    assert_true(sel && counter && pressure && level && mode);
    assert_ptr_equal(m->multiplexor, sel);
    assert_true(sel->selects);
    assert_int_equal(sel->start_bit, 0);
    assert_int_equal(sel->length, 4);
    assert_true(sel->has_start && sel->start_raw == 2); /* INITIAL-DYNAMIC-PART */
    assert_int_equal(counter->mux, RTCOSIM_DBC_PLAIN);
    assert_int_equal(counter->start_bit, 4);
    assert_int_equal(pressure->mux, RTCOSIM_DBC_MULTIPLEXED);
    assert_int_equal(pressure->mux_value, 1);
    assert_int_equal(level->mux_value, 2);
    assert_int_equal(mode->mux_value, 2);
    assert_int_equal(mode->start_bit, 16);
    const uint8_t a[8] = {0x21, 0x34, 0x12}, b[8] = {0x32, 0x7F, 0x02};
    assert_true(rtcosim_dbc_decode(sel, a, 8) == 1 && rtcosim_dbc_decode(counter, a, 8) == 2);
    assert_true(rtcosim_dbc_signal_present(m, pressure, a, 8));
    assert_true(rtcosim_dbc_decode(pressure, a, 8) == 4660);
    assert_false(rtcosim_dbc_signal_present(m, level, a, 8));
    assert_false(rtcosim_dbc_signal_present(m, pressure, b, 8));
    assert_true(rtcosim_dbc_signal_present(m, level, b, 8) &&
                rtcosim_dbc_signal_present(m, mode, b, 8));
    /* Level's scaling from its SYSTEM-SIGNAL's PHYSICAL-PROPS: (-20 + raw) / 2 */
    assert_true(level->factor == 0.5 && level->offset == -10);
    assert_string_equal(level->unit, "%");
    assert_true(rtcosim_dbc_decode(counter, b, 8) == 3 && rtcosim_dbc_decode(level, b, 8) == 53.5 &&
                rtcosim_dbc_decode(mode, b, 8) == 2);
    const rtcosim_dbc_message *sec = rtcosim_dbc_find_id(d, 0x200, false);
    assert_non_null(sec);
    assert_int_equal(sec->signal_count, 1);
    const rtcosim_dbc_signal *torque = rtcosim_dbc_find_signal(sec, "Torque");
    assert_true(torque && torque->is_signed && torque->start_bit == 0);
    const uint8_t t[8] = {0x38, 0xFF, 0x5A, 0x11, 0x22, 0x33};
    assert_true(rtcosim_dbc_decode(torque, t, 8) == -200);
    rtcosim_dbc_free(d);
}

/* ContFrame (0x300, CAN FD, 16 bytes): a CONTAINER-I-PDU with short
 * headers (big-endian: 3 bytes id, 1 byte length) holding C1 (header id 18:
 * Pressure, 16 bits Intel) and C2 (0x34: Counter, 4 bits). Bytes
 * 00 00 34 01 | 05 | 00 00 99 01 | FF | 00 00 12 02 | E8 03 | 00 00 00 00:
 * C2 with Counter 5, an id the matrix lacks (1 byte read over), C1 with
 * Pressure 0x03E8 = 1000, then padding. */
static void container_pdus_are_found_by_their_headers(void **state)
{
    (void)state;
    rtcosim_error err;
    rtcosim_dbc *d = parse(matrix, &err);
    if (!d)
        fail_msg("%s", err.message);
    const rtcosim_dbc_message *c = rtcosim_dbc_find_id(d, 0x300, false),
                              *c1 = rtcosim_dbc_find_message(d, "C1"),
                              *c2 = rtcosim_dbc_find_message(d, "C2");
    assert_true(c && c1 && c2);
    assert_int_equal(c->header_bytes, 4);
    assert_false(c->header_little_endian);
    assert_int_equal(c->signal_count, 0);
    assert_int_equal(rtcosim_dbc_contained_count(d, c), 2);
    assert_ptr_equal(c1->contained_in, c);
    assert_int_equal(c1->header_id, 18);
    assert_int_equal(c2->header_id, 0x34);
    assert_int_equal(c1->dlc, 2);
    assert_int_equal(c1->id, 0x300); /* its container's, but not found by it */
    /* the sending: the container's trigger, threshold and padding; C1's
     * props, and C2's defaults (last is best, no trigger, no timeout) */
    assert_int_equal(c->container_timeout, 0);
    assert_true(c->container_first_trigger);
    assert_int_equal(c->container_threshold, 12);
    assert_int_equal(c->container_padding, 0xFF);
    assert_true(c1->contained_trigger && c1->contained_queued);
    assert_int_equal(c1->contained_timeout, 4000000);
    assert_false(c2->contained_trigger || c2->contained_queued);
    assert_int_equal(c2->contained_timeout, -1);
    const uint8_t frame[16] = {0, 0, 0x34, 1, 5, 0, 0, 0x99, 1, 0xFF, 0, 0, 0x12, 2, 0xE8, 3};
    size_t offset = 0;
    rtcosim_dbc_container_part part;
    assert_int_equal(rtcosim_dbc_container_next(d, c, frame, 16, &offset, &part), 1);
    assert_ptr_equal(part.pdu, c2);
    assert_ptr_equal(rtcosim_dbc_contained_at(d, c, part.index), c2); /* 0x34 after 18 */
    assert_int_equal(part.index, 1);
    assert_int_equal(part.size, 1);
    assert_true(rtcosim_dbc_decode(&c2->signals[0], part.data, part.size) == 5);
    assert_int_equal(rtcosim_dbc_container_next(d, c, frame, 16, &offset, &part), 1);
    assert_null(part.pdu);
    assert_int_equal(part.header_id, 0x99);
    assert_int_equal(rtcosim_dbc_container_next(d, c, frame, 16, &offset, &part), 1);
    assert_ptr_equal(part.pdu, c1);
    assert_true(rtcosim_dbc_decode(&c1->signals[0], part.data, part.size) == 1000);
    assert_int_equal(offset, 16);
    assert_int_equal(rtcosim_dbc_container_next(d, c, frame, 16, &offset, &part), 0);
    /* padding ends it; a length past the frame is refused */
    const uint8_t padded[8] = {0, 0, 0x34, 1, 7, 0, 0, 0};
    offset = 0;
    assert_int_equal(rtcosim_dbc_container_next(d, c, padded, 8, &offset, &part), 1);
    assert_int_equal(rtcosim_dbc_container_next(d, c, padded, 8, &offset, &part), 0);
    /* a header of the container's padding bytes (UNUSED-BIT-PATTERN 255) too */
    const uint8_t filled[9] = {0, 0, 0x34, 1, 7, 0xFF, 0xFF, 0xFF, 0xFF};
    offset = 0;
    assert_int_equal(rtcosim_dbc_container_next(d, c, filled, 9, &offset, &part), 1);
    assert_int_equal(rtcosim_dbc_container_next(d, c, filled, 9, &offset, &part), 0);
    const uint8_t overrun[8] = {0, 0, 0x12, 9, 1, 2, 3, 4};
    offset = 0;
    assert_int_equal(rtcosim_dbc_container_next(d, c, overrun, 8, &offset, &part), -1);
    /* headers written: short big-endian (3 + 1 bytes), and long
     * little-endian (4 + 4, least significant first) */
    uint8_t h[8];
    rtcosim_dbc_container_put(c, 0x123456, 7, h);
    assert_memory_equal(h, ((uint8_t[]){0x12, 0x34, 0x56, 7}), 4);
    rtcosim_dbc_message longer = {.header_bytes = 8, .header_little_endian = true};
    rtcosim_dbc_container_put(&longer, 0x01020304, 0x0506, h);
    assert_memory_equal(h, ((uint8_t[]){4, 3, 2, 1, 6, 5, 0, 0}), 8);
    rtcosim_dbc_free(d);
}

static void replace(char *text, const char *find, const char *with)
{
    char *at = strstr(text, find);
    assert_non_null(at);
    size_t n = strlen(find), w = strlen(with);
    memmove(at + w, at + n, strlen(at + n) + 1);
    memcpy(at, with, w);
}

static void bad_matrices_get_one_line_errors(void **state)
{
    (void)state;
    static char text[sizeof matrix + 1024];
    struct {
        const char *find, *with, *want;
    } cases[] = {
        {"/Frames/Status</FRAME-REF>", "/Frames/Nope</FRAME-REF>",
         "m.arxml:4: FRAME-REF /Frames/Nope: no element has that path"},
        {"<IDENTIFIER>0x18FF1234</IDENTIFIER>", "<IDENTIFIER>x</IDENTIFIER>",
         "m.arxml:4: CAN-FRAME-TRIGGERING of Status: IDENTIFIER missing or beyond 29-bit ids"},
        {"Speed</SHORT-NAME><LENGTH>16<", "Speed</SHORT-NAME><LENGTH>0<",
         "I-SIGNAL Speed: LENGTH missing or not 1..64"},
        {"<START-POSITION>40</START-POSITION>", "<START-POSITION>60</START-POSITION>",
         "signal Mode: its bits do not fit the frame's 8 bytes"},
        {"<V>100</V>", "<V>0</V>", "COMPU-DENOMINATOR: not a non-zero number"},
        {"http://autosar.org/schema/r4.0", "http://autosar.org/3.2.3", "AUTOSAR 3"},
        {"<AR-PACKAGES>", "<AR-PACKAGES", "m.arxml: not well-formed XML"},
        {"<SELECTOR-FIELD-LENGTH>4<", "<SELECTOR-FIELD-LENGTH>40<",
         "MULTIPLEXED-I-PDU Muxed: SELECTOR-FIELD-LENGTH missing or not 1..32"},
        {"<SELECTOR-FIELD-CODE>2", "<SELECTOR-FIELD-CODE>16",
         "MULTIPLEXED-I-PDU Muxed: SELECTOR-FIELD-CODE missing or beyond its 4-bit selector"},
        {"<SELECTOR-FIELD-START-POSITION>0<", "<SELECTOR-FIELD-START-POSITION>62<",
         "MULTIPLEXED-I-PDU Muxed: its selector field does not fit the frame's 8 bytes"},
        {"/Pdus/AltA</I-PDU-REF>", "/Pdus/SecPdu</I-PDU-REF>",
         "MULTIPLEXED-I-PDU Muxed: a part's I-PDU is a SECURED-I-PDU, not an I-SIGNAL-I-PDU"},
        {"<BASE-TYPE-ENCODING>2C<", "<BASE-TYPE-ENCODING>IEEE754<",
         "I-SIGNAL Temp: an IEEE754 base type needs 32 or 64 bits, it has 12"},
        {"<HEADER-ID-SHORT-HEADER>0x34<", "<HEADER-ID-SHORT-HEADER>0x1000000<",
         "C2 in CONTAINER-I-PDU Cont: no HEADER-ID-SHORT-HEADER (0..0xFFFFFF)"},
        {"<HEADER-TYPE>SHORT-HEADER<", "<HEADER-TYPE>TALL-HEADER<",
         "CONTAINER-I-PDU Cont: HEADER-TYPE TALL-HEADER"},
        {"<CONTAINER-TRIGGER>FIRST-CONTAINED-TRIGGER<", "<CONTAINER-TRIGGER>EVERY-TRIGGER<",
         "CONTAINER-I-PDU Cont: CONTAINER-TRIGGER EVERY-TRIGGER (DEFAULT-TRIGGER or"
         " FIRST-CONTAINED-TRIGGER)"},
        {"<THRESHOLD-SIZE>12<", "<THRESHOLD-SIZE>17<",
         "CONTAINER-I-PDU Cont: THRESHOLD-SIZE not a number of bytes (0..16, its frame's)"},
        {"<UNUSED-BIT-PATTERN>255<", "<UNUSED-BIT-PATTERN>256<",
         "CONTAINER-I-PDU Cont: UNUSED-BIT-PATTERN not a byte (0..255)"},
        {"<TRIGGER>ALWAYS<", "<TRIGGER>SOMETIMES<",
         "contained PDU C1: TRIGGER SOMETIMES (ALWAYS or NEVER)"},
        {"<COLLECTION-SEMANTICS>QUEUED<", "<COLLECTION-SEMANTICS>NEWEST<",
         "contained PDU C1: COLLECTION-SEMANTICS NEWEST (LAST-IS-BEST or QUEUED)"},
        {"<TIMEOUT>0.004<", "<TIMEOUT>-1<",
         "contained PDU C1: TIMEOUT not a time in seconds (0 to 1000)"},
        {"/Cluster/CAN1/CH/PT_Auth</PAYLOAD-REF>", "/Cluster/CAN1/CH/PT_Nope</PAYLOAD-REF>",
         "PAYLOAD-REF /Cluster/CAN1/CH/PT_Nope: no element has that path"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        strcpy(text, matrix);
        replace(text, cases[i].find, cases[i].with);
        rtcosim_error err;
        rtcosim_dbc *d = parse(text, &err);
        if (d)
            fail_msg("case %zu accepted", i);
        if (!strstr(err.message, cases[i].want) || strchr(err.message, '\n'))
            fail_msg("'%s' does not say '%s'", err.message, cases[i].want);
    }
    rtcosim_error err;
    assert_null(parse("<?xml version=\"1.0\"?><AUTOSAR xmlns=\"http://autosar.org/schema/r4.0\"/>",
                      &err));
    assert_non_null(strstr(err.message, "no CAN frame"));
    assert_null(parse("<?xml version=\"1.0\"?><DBC/>", &err));
    assert_non_null(strstr(err.message, "the root element is not AUTOSAR"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_matrix_reads_like_the_dbc_it_stands_for),
        cmocka_unit_test(multiplexed_and_secured_pdus_read_as_multiplexing_and_payload),
        cmocka_unit_test(container_pdus_are_found_by_their_headers),
        cmocka_unit_test(bad_matrices_get_one_line_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
