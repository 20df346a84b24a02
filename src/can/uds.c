/* UDS and OBD messages in words (isotp.h: rtcosim_uds_describe). Facts: the
 * service identifiers and negative response codes of ISO 14229-1:2020, those
 * of KWP 2000 (ISO 14230-3) that UDS did not take over (named "KWP ..."), the OBD services of SAE J1979 / ISO 15031-5 (0x01 to
 * 0x0A); a positive response is the request's id + 0x40, a negative one
 * 0x7F, the request's id, the code. */
#include <stdio.h>
#include <string.h>

#include "rtcosim/isotp.h"

typedef struct named {
    uint8_t id;
    const char *name;
} named;

static const named services[] = {
    {0x01, "OBD ShowCurrentData"},
    {0x02, "OBD ShowFreezeFrameData"},
    {0x03, "OBD ShowStoredDTCs"},
    {0x04, "OBD ClearDTCs"},
    {0x05, "OBD OxygenSensorMonitoring"},
    {0x06, "OBD OnBoardMonitoring"},
    {0x07, "OBD ShowPendingDTCs"},
    {0x08, "OBD ControlOnBoardSystem"},
    {0x09, "OBD VehicleInformation"},
    {0x0A, "OBD PermanentDTCs"},
    {0x10, "DiagnosticSessionControl"},
    {0x11, "ECUReset"},
    {0x12, "KWP ReadFreezeFrameData"},
    {0x13, "KWP ReadDiagnosticTroubleCodes"},
    {0x14, "ClearDiagnosticInformation"},
    {0x17, "KWP ReadStatusOfDiagnosticTroubleCodes"},
    {0x18, "KWP ReadDiagnosticTroubleCodesByStatus"},
    {0x19, "ReadDTCInformation"},
    {0x1A, "KWP ReadECUIdentification"},
    {0x21, "KWP ReadDataByLocalIdentifier"},
    {0x22, "ReadDataByIdentifier"},
    {0x23, "ReadMemoryByAddress"},
    {0x24, "ReadScalingDataByIdentifier"},
    {0x27, "SecurityAccess"},
    {0x28, "CommunicationControl"},
    {0x29, "Authentication"},
    {0x2A, "ReadDataByPeriodicIdentifier"},
    {0x2C, "DynamicallyDefineDataIdentifier"},
    {0x2E, "WriteDataByIdentifier"},
    {0x2F, "InputOutputControlByIdentifier"},
    {0x30, "KWP InputOutputControlByLocalIdentifier"},
    {0x31, "RoutineControl"},
    {0x34, "RequestDownload"},
    {0x35, "RequestUpload"},
    {0x36, "TransferData"},
    {0x37, "RequestTransferExit"},
    {0x38, "RequestFileTransfer"},
    {0x3B, "KWP WriteDataByLocalIdentifier"},
    {0x3D, "WriteMemoryByAddress"},
    {0x3E, "TesterPresent"},
    {0x83, "AccessTimingParameter"},
    {0x84, "SecuredDataTransmission"},
    {0x85, "ControlDTCSetting"},
    {0x86, "ResponseOnEvent"},
    {0x87, "LinkControl"},
};

static const named codes[] = {
    {0x10, "generalReject"},
    {0x11, "serviceNotSupported"},
    {0x12, "subFunctionNotSupported"},
    {0x13, "incorrectMessageLengthOrInvalidFormat"},
    {0x14, "responseTooLong"},
    {0x21, "busyRepeatRequest"},
    {0x22, "conditionsNotCorrect"},
    {0x24, "requestSequenceError"},
    {0x25, "noResponseFromSubnetComponent"},
    {0x26, "failurePreventsExecutionOfRequestedAction"},
    {0x31, "requestOutOfRange"},
    {0x33, "securityAccessDenied"},
    {0x34, "authenticationRequired"},
    {0x35, "invalidKey"},
    {0x36, "exceedNumberOfAttempts"},
    {0x37, "requiredTimeDelayNotExpired"},
    {0x70, "uploadDownloadNotAccepted"},
    {0x71, "transferDataSuspended"},
    {0x72, "generalProgrammingFailure"},
    {0x73, "wrongBlockSequenceCounter"},
    {0x78, "requestCorrectlyReceived-ResponsePending"},
    {0x7E, "subFunctionNotSupportedInActiveSession"},
    {0x7F, "serviceNotSupportedInActiveSession"},
    {0x81, "rpmTooHigh"},
    {0x82, "rpmTooLow"},
    {0x83, "engineIsRunning"},
    {0x84, "engineIsNotRunning"},
    {0x85, "engineRunTimeTooLow"},
    {0x86, "temperatureTooHigh"},
    {0x87, "temperatureTooLow"},
    {0x88, "vehicleSpeedTooHigh"},
    {0x89, "vehicleSpeedTooLow"},
    {0x8A, "throttle/PedalTooHigh"},
    {0x8B, "throttle/PedalTooLow"},
    {0x8C, "transmissionRangeNotInNeutral"},
    {0x8D, "transmissionRangeNotInGear"},
    {0x8F, "brakeSwitch(es)NotClosed"},
    {0x90, "shifterLeverNotInPark"},
    {0x91, "torqueConverterClutchLocked"},
    {0x92, "voltageTooHigh"},
    {0x93, "voltageTooLow"},
};

static const char *lookup(const named *t, size_t n, uint8_t id)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].id == id)
            return t[i].name;
    return NULL;
}
#define LOOKUP(table, id) lookup(table, sizeof table / sizeof *table, id)

/* The detail a service's first bytes after its id give, into at. */
static void detail(uint8_t sid, const uint8_t *p, size_t n, char *at, size_t room)
{
    if (!room)
        return;
    *at = '\0';
    switch (sid) {
    case 0x22: /* the first data identifier */
    case 0x2E:
    case 0x2F:
    case 0x24:
        if (n >= 2)
            snprintf(at, room, " DID 0x%02X%02X", p[0], p[1]);
        break;
    case 0x31: /* sub-function (start 1, stop 2, results 3), routine id */
        if (n >= 3)
            snprintf(at, room, " %s routine 0x%02X%02X",
                     (p[0] & 0x7F) == 1 ? "start" : (p[0] & 0x7F) == 2 ? "stop"
                     : (p[0] & 0x7F) == 3 ? "results" : "sub-function", p[1], p[2]);
        break;
    case 0x10: /* session: default 1, programming 2, extended 3 */
        if (n >= 1)
            snprintf(at, room, " %s",
                     (p[0] & 0x7F) == 1 ? "defaultSession" : (p[0] & 0x7F) == 2
                     ? "programmingSession" : (p[0] & 0x7F) == 3 ? "extendedDiagnosticSession"
                     : "session");
        if (n >= 1 && (p[0] & 0x7F) > 3)
            snprintf(at + strlen(at), room - strlen(at), " 0x%02X", p[0] & 0x7F);
        break;
    case 0x19: /* report type */
    case 0x11:
    case 0x27:
    case 0x3E:
    case 0x85:
    case 0x28:
        if (n >= 1)
            snprintf(at, room, " sub-function 0x%02X", p[0] & 0x7F);
        break;
    case 0x21: /* KWP: the local identifier */
    case 0x30:
    case 0x3B:
        if (n >= 1)
            snprintf(at, room, " local id 0x%02X", p[0]);
        break;
    case 0x36:
    case 0x01:
    case 0x02:
    case 0x09:
        if (n >= 1)
            snprintf(at, room, sid == 0x36 ? " block %u" : " PID 0x%02X", p[0]);
        break;
    default:
        break;
    }
}

rtcosim_uds_kind rtcosim_uds_classify(const uint8_t *data, size_t size, uint8_t *service)
{
    *service = 0;
    if (!size)
        return RTCOSIM_UDS_UNKNOWN;
    if (data[0] == 0x7F) {
        if (size < 3)
            return RTCOSIM_UDS_UNKNOWN;
        *service = data[1];
        return data[2] == 0x78 ? RTCOSIM_UDS_PENDING : RTCOSIM_UDS_NEGATIVE;
    }
    if (LOOKUP(services, data[0])) {
        *service = data[0];
        return RTCOSIM_UDS_REQUEST;
    }
    if (data[0] >= 0x40 && LOOKUP(services, (uint8_t)(data[0] - 0x40))) {
        *service = (uint8_t)(data[0] - 0x40);
        return RTCOSIM_UDS_POSITIVE;
    }
    return RTCOSIM_UDS_UNKNOWN;
}

const char *rtcosim_uds_describe(const uint8_t *data, size_t size, char *buf, size_t buf_size)
{
    if (!buf_size)
        return buf;
    buf[0] = '\0';
    if (!size)
        return buf;
    uint8_t sid = data[0];
    if (sid == 0x7F) { /* negative response */
        const char *svc = size >= 2 ? LOOKUP(services, data[1]) : NULL;
        const char *code = size >= 3 ? LOOKUP(codes, data[2]) : NULL;
        char sv[24], cd[24];
        if (!svc)
            snprintf(sv, sizeof sv, size >= 2 ? "service 0x%02X" : "?", size >= 2 ? data[1] : 0);
        if (!code)
            snprintf(cd, sizeof cd, size >= 3 ? "code 0x%02X" : "no code", size >= 3 ? data[2] : 0);
        snprintf(buf, buf_size, "negative response to %s: %s", svc ? svc : sv, code ? code : cd);
        return buf;
    }
    const char *name = LOOKUP(services, sid);
    bool response = false;
    if (!name && sid >= 0x40 && (name = LOOKUP(services, (uint8_t)(sid - 0x40))))
        response = true;
    if (!name) {
        snprintf(buf, buf_size, "service 0x%02X", sid);
        return buf;
    }
    int n = snprintf(buf, buf_size, "%s%s", name, response ? " response" : "");
    if (n > 0 && (size_t)n < buf_size)
        detail(response ? (uint8_t)(sid - 0x40) : sid, data + 1, size - 1, buf + n,
               buf_size - (size_t)n);
    return buf;
}
