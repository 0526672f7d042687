/* The operators aclnn_emu implements, with the signature of their phase 1
 * (after the operator's own name, before workspaceSize and executor) that
 * Python reads to call them and the README's table lists. Every other
 * declared operator is a stub that fails phase 1 with 561003
 * (src/ops/declared/stubs.c).
 *
 * Signature: comma-separated `name:kind` with kind one of
 *   tensor  an input tensor          tensor?  an optional input tensor (may be NULL)
 *   out     an output tensor         inout    a tensor read and written (Inplace forms)
 *   scalar  an aclScalar             scalar?  an optional aclScalar
 *   int     int64_t                  bool     bool
 *   double  double                   dtype    aclDataType
 *   intarray  aclIntArray (intarray? may be NULL)   boolarray  aclBoolArray
 *   floatarray  aclFloatArray        tensorlist  aclTensorList of inputs
 *   string  a NUL-terminated char *  out?     an optional output tensor (may be NULL) */
#include "aclnn_emu/aclnn_emu.h"
#include "ops/opdef.h"

#define UNARY(Name) {"aclnn" #Name, "self:tensor,out:out"}, {"aclnnInplace" #Name, "selfRef:inout"}

static const emu_op_info OPERATORS[] = {
    {"aclnnAbs", "self:tensor,out:out"},
    UNARY(Neg),
    UNARY(Exp),
    UNARY(Log),
    {"aclnnSqrt", "self:tensor,out:out"},
    {"aclnnInplaceSqrt", "self:inout"},
    UNARY(Sin),
    {"aclnnCos", "input:tensor,out:out"},
    {"aclnnInplaceCos", "inputRef:inout"},
    UNARY(Tanh),
    {"aclnnSign", "self:tensor,result:out"},
    UNARY(Sigmoid),
    UNARY(Relu),
    {"aclnnGelu", "self:tensor,out:out"},
    {"aclnnGeluV2", "x:tensor,approximate:int,y:out"},
    {"aclnnHardsigmoid", "self:tensor,out:out"},
    {"aclnnInplaceHardsigmoid", "self:inout"},
    {"aclnnHardswish", "self:tensor,out:out"},
    {"aclnnInplaceHardswish", "self:inout"},
    {"aclnnElu", "self:tensor,alpha:scalar,scale:scalar,inputScale:scalar,out:out"},
    {"aclnnInplaceElu", "selfRef:inout,alpha:scalar,scale:scalar,inputScale:scalar"},
    {"aclnnSoftplus", "self:tensor,beta:scalar,threshold:scalar,out:out"},
    {"aclnnLeakyRelu", "self:tensor,negativeSlope:scalar,out:out"},
    {"aclnnInplaceLeakyRelu", "selfRef:inout,negativeSlope:scalar"},
    {"aclnnGtScalar", "self:tensor,other:scalar,out:out"},
    {"aclnnInplaceGtScalar", "selfRef:inout,other:scalar"},
    {"aclnnClamp", "self:tensor,clipValueMin:scalar?,clipValueMax:scalar?,out:out"},
    {"aclnnClampMin", "self:tensor,clipValueMin:scalar,out:out"},
    {"aclnnClampMax", "self:tensor,clipValueMax:scalar,out:out"},
    {"aclnnInplaceClampMax", "selfRef:inout,clipValueMax:scalar"},
    {"aclnnThreshold", "self:tensor,threshold:scalar,value:scalar,out:out"},
    {"aclnnInplaceThreshold", "selfRef:inout,threshold:scalar,value:scalar"},
    {"aclnnAdd", "self:tensor,other:tensor,alpha:scalar,out:out"},
    {"aclnnInplaceAdd", "selfRef:inout,other:tensor,alpha:scalar"},
    {"aclnnAdds", "self:tensor,other:scalar,alpha:scalar,out:out"},
    {"aclnnInplaceAdds", "selfRef:inout,other:scalar,alpha:scalar"},
    {"aclnnSub", "self:tensor,other:tensor,alpha:scalar,out:out"},
    {"aclnnInplaceSub", "selfRef:inout,other:tensor,alpha:scalar"},
    {"aclnnSubs", "self:tensor,other:scalar,alpha:scalar,out:out"},
    {"aclnnInplaceSubs", "selfRef:inout,other:scalar,alpha:scalar"},
    {"aclnnMul", "self:tensor,other:tensor,out:out"},
    {"aclnnInplaceMul", "selfRef:inout,other:tensor"},
    {"aclnnMuls", "self:tensor,other:scalar,out:out"},
    {"aclnnInplaceMuls", "selfRef:inout,other:scalar"},
    {"aclnnDiv", "self:tensor,other:tensor,out:out"},
    {"aclnnInplaceDiv", "selfRef:inout,other:tensor"},
    {"aclnnDivs", "self:tensor,other:scalar,out:out"},
    {"aclnnInplaceDivs", "selfRef:inout,other:scalar"},
    {"aclnnEqTensor", "self:tensor,other:tensor,out:out"},
    {"aclnnInplaceEqTensor", "selfRef:inout,other:tensor"},
    {"aclnnPowScalarTensor", "self:scalar,exponent:tensor,out:out"},
    {"aclnnCast", "self:tensor,dtype:dtype,out:out"},
    {"aclnnInplaceCopy", "selfRef:inout,src:tensor"},
    {"aclnnInplaceZero", "selfRef:inout"},
    {"aclnnInplaceFillScalar", "selfRef:inout,value:scalar"},
    {"aclnnSwiGlu", "x:tensor,dim:int,out:out"},
    {"aclnnGeGlu", "self:tensor,dim:int,approximate:int,out:out,outGelu:out"},
    {"aclnnGeGluV3", "self:tensor,dim:int,approximate:int,activateLeft:bool,out:out,outGelu:out"},
    /* ---- reductions (reduce.c) ---- */
    {"aclnnReduceSum", "self:tensor,dims:intarray,keepDims:bool,dtype:dtype,out:out"},
    {"aclnnMean", "self:tensor,dim:intarray,keepDim:bool,dtype:dtype,out:out"},
    {"aclnnMeanV2", "self:tensor,dim:intarray,keepDim:bool,noopWithEmptyAxes:bool,out:out"},
    {"aclnnNorm", "self:tensor,pScalar:scalar,dim:intarray,keepdim:bool,out:out"},
    {"aclnnArgMax", "self:tensor,dim:int,keepdim:bool,out:out"},
    {"aclnnArgsort", "self:tensor,dim:int,descending:bool,out:out"},
    {"aclnnCumsum", "self:tensor,dim:int,dtype:dtype,out:out"},
    {"aclnnCumsumV2", "self:tensor,dim:int,exclusive:bool,reverse:bool,out:out"},
    /* ---- norms and softmax (norm.c) ---- */
    {"aclnnRmsNorm", "x:tensor,gamma:tensor,epsilon:double,yOut:out,rstdOut:out"},
    {"aclnnAddRmsNorm", "x1:tensor,x2:tensor,gamma:tensor,epsilon:double,yOut:out,rstdOut:out?,xOut:out?"},
    {"aclnnLayerNorm", "input:tensor,normalizedShape:intarray,weightOptional:tensor?,biasOptional:tensor?,"
                       "eps:double,out:out,meanOutOptional:out?,rstdOutOptional:out?"},
    {"aclnnLayerNormWithImplMode", "input:tensor,normalizedShape:intarray,weightOptional:tensor?,"
                                   "biasOptional:tensor?,eps:double,out:out,meanOutOptional:out?,"
                                   "rstdOutOptional:out?,implMode:int"},
    {"aclnnGroupNorm", "self:tensor,gamma:tensor?,beta:tensor?,N:int,C:int,HxW:int,group:int,eps:double,out:out,"
                       "meanOut:out,rstdOut:out"},
    {"aclnnSoftmax", "self:tensor,dim:int,out:out"},
    {"aclnnSoftmaxCrossEntropyWithLogits", "features:tensor,labels:tensor,loss:out,backprop:out"},
    /* ---- data movement (movement.c) ---- */
    {"aclnnPermute", "self:tensor,dims:intarray,out:out"},
    {"aclnnSlice", "self:tensor,dim:int,start:int,end:int,step:int,out:out"},
    {"aclnnRepeat", "self:tensor,repeats:intarray,out:out"},
    {"aclnnRepeatInterleaveIntWithDim", "self:tensor,repeats:int,dim:int,outputSize:int,out:out"},
    {"aclnnCat", "tensors:tensorlist,dim:int,out:out"},
    {"aclnnRoll", "x:tensor,shifts:intarray,dims:intarray,out:out"},
    {"aclnnConstantPadNd", "self:tensor,pad:intarray,value:scalar,out:out"},
    {"aclnnReflectionPad1d", "self:tensor,padding:intarray,out:out"},
    {"aclnnTril", "self:tensor,diagonal:int,out:out"},
    {"aclnnInplaceTril", "selfRef:inout,diagonal:int"},
    {"aclnnTriu", "self:tensor,diagonal:int,out:out"},
    {"aclnnInplaceTriu", "selfRef:inout,diagonal:int"},
    {"aclnnArange", "start:scalar,end:scalar,step:scalar,out:out"},
    /* ---- indexing (index.c) ---- */
    {"aclnnGatherV2", "self:tensor,dim:int,index:tensor,out:out"},
    {"aclnnIndexSelect", "self:tensor,dim:int,index:tensor,out:out"},
    {"aclnnIndexCopy", "selfRef:tensor,dim:int,index:tensor,source:tensor,outRef:out"},
    {"aclnnInplaceIndexCopy", "selfRef:inout,dim:int,index:tensor,source:tensor"},
    {"aclnnIndexFillTensor", "self:tensor,dim:int,index:intarray,value:scalar,out:out"},
    {"aclnnInplaceIndexFillTensor", "selfRef:inout,dim:int,index:intarray,value:scalar"},
    {"aclnnUpsampleNearest2d", "self:tensor,outputSize:intarray,out:out"},
    {"aclnnIm2col", "self:tensor,kernelSize:intarray,dilation:intarray,padding:intarray,stride:intarray,out:out"},
    /* ---- matrix multiply (matmul.c) ---- */
    {"aclnnMm", "self:tensor,mat2:tensor,out:out,cubeMathType:int"},
    {"aclnnBatchMatMul", "self:tensor,mat2:tensor,out:out,cubeMathType:int"},
    {"aclnnMatmul", "self:tensor,mat2:tensor,out:out,cubeMathType:int"},
    {"aclnnMv", "self:tensor,vec:tensor,out:out,cubeMathType:int"},
    {"aclnnTriangularSolve", "self:tensor,A:tensor,upper:bool,transpose:bool,unitriangular:bool,xOut:out,mOut:out?"},
    /* ---- convolution and pooling (conv.c) ---- */
    {"aclnnConvolution", "input:tensor,weight:tensor,bias:tensor?,stride:intarray,padding:intarray,"
                         "dilation:intarray,transposed:bool,outputPadding:intarray,groups:int,output:out,"
                         "cubeMathType:int"},
    {"aclnnAvgPool2d", "self:tensor,kernelSize:intarray,strides:intarray,paddings:intarray,ceilMode:bool,"
                       "countIncludePad:bool,divisorOverride:int,cubeMathType:int,out:out"},
    {"aclnnMaxPool", "self:tensor,kernelShape:intarray,strides:intarray,autoPad:int,pads:intarray,"
                     "dilations:intarray,ceilMode:int,out:out"},
    /* ---- attention (attention.c) ---- */
    {"aclnnFusedInferAttentionScoreV2",
     "query:tensor,key:tensorlist,value:tensorlist,pseShiftOptional:tensor?,attenMaskOptional:tensor?,"
     "actualSeqLengthsOptional:intarray?,actualSeqLengthsKvOptional:intarray?,deqScale1Optional:tensor?,"
     "quantScale1Optional:tensor?,deqScale2Optional:tensor?,quantScale2Optional:tensor?,quantOffset2Optional:tensor?,"
     "antiquantScaleOptional:tensor?,antiquantOffsetOptional:tensor?,blockTableOptional:tensor?,"
     "queryPaddingSizeOptional:tensor?,kvPaddingSizeOptional:tensor?,keyAntiquantScaleOptional:tensor?,"
     "keyAntiquantOffsetOptional:tensor?,valueAntiquantScaleOptional:tensor?,valueAntiquantOffsetOptional:tensor?,"
     "keySharedPrefixOptional:tensor?,valueSharedPrefixOptional:tensor?,actualSharedPrefixLenOptional:intarray?,"
     "numHeads:int,scaleValue:double,preTokens:int,nextTokens:int,inputLayout:string,numKeyValueHeads:int,"
     "sparseMode:int,innerPrecise:int,blockSize:int,antiquantMode:int,softmaxLseFlag:bool,keyAntiquantMode:int,"
     "valueAntiquantMode:int,attentionOut:out,softmaxLse:out?"},
    /* ---- quantized weights (quant_matmul.c) ---- */
    {"aclnnWeightQuantBatchMatmulV2", "x:tensor,weight:tensor,antiquantScale:tensor,antiquantOffsetOptional:tensor?,"
                                      "quantScaleOptional:tensor?,quantOffsetOptional:tensor?,biasOptional:tensor?,"
                                      "antiquantGroupSize:int,y:out"},
    {"aclnnTransMatmulWeight", "mmWeightRef:inout"},
    {"aclnnSilu", "self:tensor,out:out"},
    {"aclnnSiluBackward", "gradOutput:tensor,self:tensor,gradInput:out"},
    {"aclnnRotaryPositionEmbedding", "x:tensor,cos:tensor,sin:tensor,mode:int,out:out"},
    {"aclnnRotaryPositionEmbeddingGrad",
     "dy:tensor,cos:tensor,sin:tensor,xOptional:tensor?,mode:int,dxOut:out,dcosOut:out,dsinOut:out"},
    {"aclnnMoeTokenPermute", "tokens:tensor,indices:tensor,numOutTokens:int,paddedMode:bool,permuteTokensOut:out,"
                             "sortedIndicesOut:out"},
    {"aclnnMoeTokenPermuteGrad", "permutedOutputGrad:tensor,sortedIndices:tensor,numTopk:int,paddedMode:bool,out:out"},
    {"aclnnFusedFloydAttention", "query:tensor,key1:tensor,value1:tensor,key2:tensor,value2:tensor,"
                                 "attenMaskOptional:tensor?,scaleValueOptional:double,softmaxMaxOut:out,"
                                 "softmaxSumOut:out,attentionOutOut:out"},
    {"aclnnFusedFloydAttentionGrad", "query:tensor,key1:tensor,value1:tensor,key2:tensor,value2:tensor,dy:tensor,"
                                     "attenMaskOptional:tensor?,softmaxMax:tensor,softmaxSum:tensor,"
                                     "attentionIn:tensor,scaleValue:double,dqOut:out,dk1Out:out,dv1Out:out,"
                                     "dk2Out:out,dv2Out:out"},
};

const emu_op_info *emu_op_registry(size_t *count)
{
    *count = sizeof OPERATORS / sizeof OPERATORS[0];
    return OPERATORS;
}

uint32_t aclnnEmuGetOperatorCount(void)
{
    return (uint32_t)(sizeof OPERATORS / sizeof OPERATORS[0]);
}

const char *aclnnEmuGetOperatorName(uint32_t index)
{
    return index < aclnnEmuGetOperatorCount() ? OPERATORS[index].api : NULL;
}

const char *aclnnEmuGetOperatorSignature(uint32_t index)
{
    return index < aclnnEmuGetOperatorCount() ? OPERATORS[index].signature : NULL;
}
